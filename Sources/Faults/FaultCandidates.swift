/// The positions of the rules a push is tried against, ascending: a merge of up to four
/// ascending lists that share no position (`FaultEngineState`'s index), or every position below
/// a count. Fixed storage, so a push allocates nothing for it.
struct FaultCandidates {
    private var lists: ([Int], [Int], [Int], [Int]) = ([], [], [], [])
    private var heads: (Int, Int, Int, Int) = (0, 0, 0, 0)
    private var all: Int?
    private var nextOfAll = 0

    /// Every position in `0..<all`.
    init(all: Int) { self.all = all }

    /// Nothing yet; `add` the lists.
    init() {}

    /// Adds an ascending list sharing no position with those added; at most four in all.
    mutating func add(_ list: [Int]) {
        if lists.0.isEmpty {
            lists.0 = list
        } else if lists.1.isEmpty {
            lists.1 = list
        } else if lists.2.isEmpty {
            lists.2 = list
        } else {
            precondition(lists.3.isEmpty, "at most four lists")
            lists.3 = list
        }
    }

    /// The next position, or nil after the last.
    mutating func next() -> Int? {
        if let all {
            guard nextOfAll < all else { return nil }
            defer { nextOfAll += 1 }
            return nextOfAll
        }
        var best = Int.max
        var which = -1
        if heads.0 < lists.0.count, lists.0[heads.0] < best { (best, which) = (lists.0[heads.0], 0) }
        if heads.1 < lists.1.count, lists.1[heads.1] < best { (best, which) = (lists.1[heads.1], 1) }
        if heads.2 < lists.2.count, lists.2[heads.2] < best { (best, which) = (lists.2[heads.2], 2) }
        if heads.3 < lists.3.count, lists.3[heads.3] < best { (best, which) = (lists.3[heads.3], 3) }
        switch which {
        case 0: heads.0 += 1
        case 1: heads.1 += 1
        case 2: heads.2 += 1
        case 3: heads.3 += 1
        default: return nil
        }
        return best
    }
}
