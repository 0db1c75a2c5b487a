/// A bounded ring of elements numbered by sequence from 1, oldest first: when full, each append
/// evicts the oldest. Not thread-safe: a store keeps it behind its lock.
///
/// Sequence numbers never repeat or go back, not even across `removeAll()`, so the ring always
/// holds a run of consecutive numbers and an element's position follows from its number (O(1)
/// lookups and `after` scans). `ConnectionEventStore` uses it; `DeliveryStore` keeps its own
/// hand-tuned copy of the same scheme for the request path.
struct SequenceRing<Element> {
    /// The most elements held before the oldest is evicted (at least 1).
    let capacity: Int
    private var elements: [Element] = []
    /// Slot of the oldest element once the ring has wrapped.
    private var start = 0
    /// The newest sequence number ever assigned (0 before the first).
    private(set) var lastSeq: UInt64 = 0
    /// Elements evicted by a full ring since the last `removeAll()`.
    private(set) var evicted: UInt64 = 0

    /// An empty ring; storage grows as elements arrive, up to `capacity`.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The sequence number the next `append` assigns.
    var nextSeq: UInt64 { lastSeq + 1 }

    /// Elements held now.
    var count: Int { elements.count }

    /// Stores `element` as number `nextSeq` and returns the element it evicted, if the ring was
    /// full, so the caller can release it outside its lock.
    @discardableResult
    mutating func append(_ element: Element) -> Element? {
        lastSeq += 1
        guard elements.count == capacity else {
            elements.append(element)
            return nil
        }
        var element = element
        swap(&elements[start], &element)  // `element` leaves holding the evicted one
        start += 1
        if start == capacity { start = 0 }
        evicted &+= 1
        return element
    }

    /// Empties the ring and returns what it held, oldest first. Numbering continues; the
    /// eviction count restarts at 0 (a clear is on purpose, not an eviction).
    mutating func removeAll() -> [Element] {
        let old = Array(elements[start...] + elements[..<start])
        elements = []
        start = 0
        evicted = 0
        return old
    }

    /// The element numbered `seq`, or nil when never stored, evicted or removed.
    func element(seq: UInt64) -> Element? {
        guard !elements.isEmpty, seq >= firstSeq, seq <= lastSeq else { return nil }
        return elements[slot(Int(seq - firstSeq))]
    }

    /// Calls `body` with each element numbered above `after` (all when nil), oldest first,
    /// until it returns false.
    func forEach(after: UInt64?, _ body: (Element) -> Bool) {
        var offset = 0
        if let after, !elements.isEmpty, after >= firstSeq {
            offset = after >= lastSeq ? elements.count : Int(after - firstSeq) + 1
        }
        while offset < elements.count {
            if !body(elements[slot(offset)]) { return }
            offset += 1
        }
    }

    /// Number of the oldest element held (meaningful when not empty).
    private var firstSeq: UInt64 { lastSeq - UInt64(elements.count) + 1 }

    /// Slot of the element `offset` places after the oldest.
    private func slot(_ offset: Int) -> Int {
        let i = start + offset
        return i >= elements.count ? i - elements.count : i
    }
}
