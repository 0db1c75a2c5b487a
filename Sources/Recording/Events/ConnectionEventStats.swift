/// Counters of a `ConnectionEventStore` (`GET /v1/stats`, key `events`).
public struct ConnectionEventStats: Sendable, Equatable {
    /// Events recorded since start; not reset by `clear()`.
    public var recorded: UInt64
    /// Events by kind since start; not reset by `clear()`. Kinds never seen are absent.
    public var byKind: [ConnectionEventKind: UInt64]
    /// Events held now.
    public var records: Int
    /// Events evicted by the full ring since the last clear.
    public var evicted: UInt64
    /// The newest sequence number assigned (0 when none).
    public var lastSeq: UInt64
    /// The ring's capacity in events.
    public var capacity: Int

    /// Memberwise initializer.
    public init(
        recorded: UInt64, byKind: [ConnectionEventKind: UInt64], records: Int, evicted: UInt64,
        lastSeq: UInt64, capacity: Int
    ) {
        self.recorded = recorded
        self.byKind = byKind
        self.records = records
        self.evicted = evicted
        self.lastSeq = lastSeq
        self.capacity = capacity
    }
}
