/// What `ConnectionEventStore.query` found.
public struct ConnectionEventQueryResult: Sendable {
    /// The matching events, oldest first.
    public var events: [ConnectionEvent]
    /// True when more events matched than the limit allowed (continue with `after` set to the
    /// last returned `seq`).
    public var more: Bool
    /// Events the ring dropped to make room since the last clear: the answer may be missing
    /// matches when this is non-zero.
    public var evicted: UInt64
    /// The newest sequence number ever assigned (0 when none): a cursor for the next `after`.
    public var lastSeq: UInt64

    /// Memberwise initializer.
    public init(events: [ConnectionEvent], more: Bool, evicted: UInt64, lastSeq: UInt64) {
        self.events = events
        self.more = more
        self.evicted = evicted
        self.lastSeq = lastSeq
    }
}
