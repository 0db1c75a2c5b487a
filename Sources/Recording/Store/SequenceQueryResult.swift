/// What a query of a store kept in a `SequenceRing` found: `DeliveryQueryResult` and
/// `ConnectionEventQueryResult` are this with their element type.
public struct SequenceQueryResult<Element> {
    /// The matching elements, oldest first.
    public var elements: [Element]
    /// True when more elements matched than the limit allowed (continue with `after` set to the
    /// last returned `seq`).
    public var more: Bool
    /// Elements the ring dropped to make room since the last clear: the answer may be missing
    /// matches when this is non-zero.
    public var evicted: UInt64
    /// The newest sequence number ever assigned (0 when none): a cursor for the next `after`.
    public var lastSeq: UInt64
    /// The sequence number of the oldest element the ring held when queried, `lastSeq + 1` when
    /// it held none: elements numbered below it are gone (evicted or cleared). A live stream
    /// reports the ones it had not sent yet as a gap (`StreamPosition`).
    public var firstSeq: UInt64

    /// Memberwise initializer; `firstSeq` nil means `lastSeq + 1` (nothing held).
    public init(elements: [Element], more: Bool, evicted: UInt64, lastSeq: UInt64, firstSeq: UInt64? = nil) {
        self.elements = elements
        self.more = more
        self.evicted = evicted
        self.lastSeq = lastSeq
        self.firstSeq = firstSeq ?? lastSeq &+ 1
    }

    /// The same answer with `transform` applied to each element.
    func map<T>(_ transform: (Element) -> T) -> SequenceQueryResult<T> {
        SequenceQueryResult<T>(
            elements: elements.map(transform), more: more, evicted: evicted, lastSeq: lastSeq, firstSeq: firstSeq)
    }
}

extension SequenceQueryResult: Sendable where Element: Sendable {}
