import APNsCore

/// Counters of a `DeliveryStore` (`GET /v1/stats`).
public struct DeliveryStats: Sendable, Equatable {
    /// Requests recorded since start; not reset by `clear()`.
    public var requests: UInt64
    /// Requests by answered HTTP status since start; not reset by `clear()`.
    public var byStatus: [Int: UInt64]
    /// Rejections by answered reason since start; not reset by `clear()`.
    public var byReason: [Reason: UInt64]
    /// Records currently held.
    public var records: Int
    /// Records evicted by the full ring since the last clear.
    public var evicted: UInt64
    /// The newest sequence number assigned (0 when none).
    public var lastSeq: UInt64
    /// The ring's capacity in records.
    public var capacity: Int

    /// Memberwise initializer.
    public init(
        requests: UInt64, byStatus: [Int: UInt64], byReason: [Reason: UInt64], records: Int,
        evicted: UInt64, lastSeq: UInt64, capacity: Int
    ) {
        self.requests = requests
        self.byStatus = byStatus
        self.byReason = byReason
        self.records = records
        self.evicted = evicted
        self.lastSeq = lastSeq
        self.capacity = capacity
    }
}
