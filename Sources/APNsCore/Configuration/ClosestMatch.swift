/// "Did you mean" for unknown keys, flags and values.
enum ClosestMatch {
    /// The candidate nearest to `input` (case-insensitive, a swap of two neighbours counting
    /// as one edit), when near enough to be a likely typo: at most one edit per three
    /// characters of `input`, and at least one.
    static func find(_ input: String, among candidates: [String]) -> String? {
        let budget = max(1, min(3, input.count / 3))
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(input.lowercased(), candidate.lowercased())
            if distance <= budget, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// ` (did you mean "<nearest>"?)` for the candidate `find` picks, quoted by `quote` (JSON
    /// quotes by default; the command line uses single quotes), or "" when none is near.
    static func hint(_ input: String, among candidates: [String], quote: (String) -> String = JSONValue.quoted) -> String {
        find(input, among: candidates).map { " (did you mean \(quote($0))?)" } ?? ""
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and adjacent
    /// transpositions each cost 1.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
