/// What `DeliveryStore.query` found.
public struct DeliveryQueryResult: Sendable {
    /// The matching records, oldest first.
    public var deliveries: [DeliveryRecord]
    /// True when more records matched than the limit allowed (continue with `after` set to the
    /// last returned `seq`).
    public var more: Bool
    /// Records the ring dropped to make room since the last clear: the answer may be missing
    /// matches when this is non-zero.
    public var evicted: UInt64
    /// The newest sequence number ever assigned (0 when none): a cursor for the next `after`.
    public var lastSeq: UInt64

    /// Memberwise initializer.
    public init(deliveries: [DeliveryRecord], more: Bool, evicted: UInt64, lastSeq: UInt64) {
        self.deliveries = deliveries
        self.more = more
        self.evicted = evicted
        self.lastSeq = lastSeq
    }
}
