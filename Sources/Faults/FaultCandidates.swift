/// The positions of the rules a push is tried against, ascending: a merge of a few ascending
/// lists that share no position (`FaultEngineState`'s index), or every position below a count.
struct FaultCandidates {
    private var lists: [[Int]]
    private var heads: [Int]
    private var all: Int?
    private var nextOfAll = 0

    /// Every position in `0..<all`.
    init(all: Int) {
        self.lists = []
        self.heads = []
        self.all = all
    }

    /// The positions of `lists` (each ascending, no position in two lists) in ascending order.
    init(merging lists: [[Int]]) {
        self.lists = lists
        self.heads = Array(repeating: 0, count: lists.count)
    }

    /// The next position, or nil after the last.
    mutating func next() -> Int? {
        if let all {
            guard nextOfAll < all else { return nil }
            defer { nextOfAll += 1 }
            return nextOfAll
        }
        var best: Int?
        var bestList = 0
        for index in lists.indices where heads[index] < lists[index].count {
            let position = lists[index][heads[index]]
            if let best, best < position { continue }
            best = position
            bestList = index
        }
        guard let best else { return nil }
        heads[bestList] += 1
        return best
    }
}
