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
    /// Records removed by `clear()` (`DELETE /v1/deliveries`) since start; not reset. With
    /// `records` and `evictedTotal` it accounts for every request: `cleared + records +
    /// evictedTotal == requests`, exactly (the soak checks it, tests/live/test_soak_invariants.py).
    public var cleared: UInt64
    /// Records evicted by the full ring since start, across clears (`evicted` restarts at 0 at
    /// each clear).
    public var evictedTotal: UInt64

    /// Memberwise initializer.
    public init(
        requests: UInt64, byStatus: [Int: UInt64], byReason: [Reason: UInt64], records: Int,
        evicted: UInt64, lastSeq: UInt64, capacity: Int, cleared: UInt64 = 0, evictedTotal: UInt64 = 0
    ) {
        self.cleared = cleared
        self.evictedTotal = evictedTotal
        self.requests = requests
        self.byStatus = byStatus
        self.byReason = byReason
        self.records = records
        self.evicted = evicted
        self.lastSeq = lastSeq
        self.capacity = capacity
    }
}
