/// A bounded ring of elements numbered by sequence from 1, oldest first: when full, each append
/// evicts the oldest. Not thread-safe: a store keeps it behind its lock.
///
/// Sequence numbers never repeat or go back, not even across `removeAll()`, so the ring always
/// holds a run of consecutive numbers and an element's position follows from its number (O(1)
/// lookups and `after` scans). `ConnectionEventStore` and `DeliveryStore` keep one each; the
/// delivery store appends on the request path, so `append(swapping:)`, `removeAll(swapping:)`
/// and `scan(after:_:)` let it place, release and read elements without extra copies.
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

    /// An empty ring; storage grows as elements arrive, up to `capacity`, from room for
    /// `reserving` elements (a large bound should not cost its memory before it is used).
    init(capacity: Int, reserving: Int = 0) {
        self.capacity = max(1, capacity)
        elements.reserveCapacity(min(self.capacity, reserving))
    }

    /// The sequence number the next `append` assigns.
    var nextSeq: UInt64 { lastSeq + 1 }

    /// Elements held now.
    var count: Int { elements.count }

    /// Stores `element` as number `nextSeq` and returns the element it evicted, if the ring was
    /// full, so the caller can release it outside its lock.
    @discardableResult
    mutating func append(_ element: Element) -> Element? {
        var element = element
        return append(swapping: &element) ? element : nil
    }

    /// Stores `element` as number `nextSeq`. When the ring was full, `element` trades places with
    /// the oldest, leaves holding the evicted one (for the caller to release outside its lock)
    /// and the answer is true.
    @discardableResult
    mutating func append(swapping element: inout Element) -> Bool {
        lastSeq += 1
        guard elements.count == capacity else {
            elements.append(element)
            return false
        }
        swap(&elements[start], &element)
        start += 1
        if start == capacity { start = 0 }
        evicted &+= 1
        return true
    }

    /// Empties the ring and returns what it held, oldest first. Numbering continues; the
    /// eviction count restarts at 0 (a clear is on purpose, not an eviction).
    mutating func removeAll() -> [Element] {
        let oldest = start
        var old: [Element] = []
        removeAll(swapping: &old)
        return Array(old[oldest...] + old[..<oldest])
    }

    /// `removeAll()` in O(1): `storage` (empty, with whatever capacity the caller reserved before
    /// taking its lock) becomes the ring's storage and leaves holding the old elements, in slot
    /// order, for the caller to release outside its lock.
    mutating func removeAll(swapping storage: inout [Element]) {
        precondition(storage.isEmpty, "SequenceRing: the replacement storage must be empty")
        swap(&elements, &storage)
        start = 0
        evicted = 0
    }

    /// Numbers the next element `seq + 1` (a journal's history put back, `DeliveryStore.attach`).
    /// Only on an empty ring whose numbering is not past `seq`.
    mutating func restore(startingAfter seq: UInt64) {
        precondition(elements.isEmpty && seq >= lastSeq, "SequenceRing: restore on a used ring")
        lastSeq = seq
    }

    /// After the elements put back: the numbering goes on after `lastSeq` (numbers after the
    /// last element held were cleared), and `evicted` elements count as evicted.
    mutating func restore(lastSeq: UInt64, evicted: UInt64) {
        precondition(lastSeq >= self.lastSeq, "SequenceRing: restore would number backwards")
        if lastSeq > self.lastSeq {
            // The numbers between were cleared: nothing held may seem to carry them.
            var none: [Element] = []
            removeAll(swapping: &none)
            self.lastSeq = lastSeq
        }
        self.evicted = evicted
    }

    /// The element numbered `seq`, or nil when never stored, evicted or removed.
    func element(seq: UInt64) -> Element? {
        guard !elements.isEmpty, seq >= firstSeq, seq <= lastSeq else { return nil }
        return elements[slot(Int(seq - firstSeq))]
    }

    /// Puts `element` in the place of the element numbered `seq`; `element` leaves holding the
    /// one replaced (for the caller to release outside its lock). False, changing nothing, when
    /// `seq` is not held.
    @discardableResult
    mutating func replace(seq: UInt64, swapping element: inout Element) -> Bool {
        guard !elements.isEmpty, seq >= firstSeq, seq <= lastSeq else { return false }
        swap(&elements[slot(Int(seq - firstSeq))], &element)
        return true
    }

    /// Calls `body` with each element numbered above `after` (all when nil), oldest first,
    /// until it returns false.
    func forEach(after: UInt64?, _ body: (Element) -> Bool) {
        scan(after: after) { _, element in body(element) }
    }

    /// `forEach(after:_:)` with each element's number, the elements borrowed through a buffer
    /// pointer rather than copied.
    func scan(after: UInt64?, _ body: (UInt64, borrowing Element) -> Bool) {
        var offset = 0
        if let after, !elements.isEmpty, after >= firstSeq {
            offset = after >= lastSeq ? elements.count : Int(after - firstSeq) + 1
        }
        var seq = firstSeq &+ UInt64(offset)
        elements.withUnsafeBufferPointer { elements in
            var i = slot(offset)
            while offset < elements.count {
                if !body(seq, elements[i]) { return }
                offset += 1
                seq &+= 1
                i += 1
                if i == elements.count { i = 0 }
            }
        }
    }

    /// The elements numbered above `after` that `isIncluded` accepts, oldest first, each as
    /// `transform` makes it: at most `limit` of them (the oldest ones; `nil` means all, a
    /// negative limit counts as 0), `more` telling whether others matched.
    func query<T>(
        after: UInt64?, limit: Int?, where isIncluded: (UInt64, borrowing Element) -> Bool,
        _ transform: (UInt64, borrowing Element) -> T
    ) -> SequenceQueryResult<T> {
        let limit = limit.map { max(0, $0) } ?? Int.max
        var found: [T] = []
        var more = false
        scan(after: after) { seq, element in
            guard isIncluded(seq, element) else { return true }
            if found.count == limit {
                more = true
                return false
            }
            found.append(transform(seq, element))
            return true
        }
        return SequenceQueryResult(
            elements: found, more: more, evicted: evicted, lastSeq: lastSeq,
            firstSeq: elements.isEmpty ? lastSeq &+ 1 : firstSeq)
    }

    /// How many elements numbered above `after` `isIncluded` accepts.
    func count(after: UInt64?, where isIncluded: (UInt64, borrowing Element) -> Bool) -> Int {
        var n = 0
        scan(after: after) { seq, element in
            if isIncluded(seq, element) { n += 1 }
            return true
        }
        return n
    }

    /// Number of the oldest element held (meaningful when not empty).
    private var firstSeq: UInt64 { lastSeq - UInt64(elements.count) + 1 }

    /// Slot of the element `offset` places after the oldest.
    private func slot(_ offset: Int) -> Int {
        let i = start + offset
        return i >= elements.count ? i - elements.count : i
    }
}
