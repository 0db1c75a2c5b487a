/// "Did you mean" for unknown keys, values and command-line flags: the one edit distance of
/// the project.
public enum ClosestMatch {
    /// The candidate nearest to `input` (case-insensitive, a swap of two neighbours counting as
    /// one edit) when near enough to be a likely typo: at most `maxDistance` edits, by default
    /// one per three characters of `input`, at least 1 and at most 3. Of equally near
    /// candidates the first in `candidates` wins; nil when none is near enough.
    public static func find(_ input: String, among candidates: [String], maxDistance: Int? = nil) -> String? {
        let budget = maxDistance ?? max(1, min(3, input.count / 3))
        let lowered = input.lowercased()
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(lowered, candidate.lowercased())
            if distance <= budget, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// ` (did you mean <nearest>?)`, with the candidate `find` picks quoted by `quote` (JSON
    /// quotes by default; a command line may use single quotes), or "" when none is near.
    public static func hint(
        _ input: String, among candidates: [String], maxDistance: Int? = nil,
        quote: (String) -> String = InputError.quoted
    ) -> String {
        find(input, among: candidates, maxDistance: maxDistance).map { " (did you mean \(quote($0))?)" } ?? ""
    }

    /// Optimal string alignment distance between `a` and `b`, by `Character`: insertions,
    /// deletions, substitutions and swaps of two adjacent characters each cost 1. Case-sensitive.
    public static func editDistance(_ a: String, _ b: String) -> Int {
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
