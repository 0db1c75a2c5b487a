/// One field in which a record differs from what a verification asked for (a near miss,
/// docs/testing.md): the field's name as in the request (`topic`, `status`, `payload.aps.badge`),
/// the value wanted and the record's value, both as JSON text; `actual` is nil when the record
/// has no value there (no such payload key, a stream that got no status).
public struct MatchDifference: Sendable, Equatable, Encodable {
    /// The field, as the verification names it.
    public var field: String
    /// The value asked for, JSON text (`"com.example.app"`, `200`).
    public var expected: String
    /// The record's value, JSON text; nil when it has none.
    public var actual: String?

    public init(field: String, expected: String, actual: String?) {
        self.field = field
        self.expected = expected
        self.actual = actual
    }

    /// `topic: expected "a", got "b"` (or `got nothing`).
    public var description: String { "\(field): expected \(expected), got \(actual ?? "nothing")" }

    /// How far `actual` is from `expected`, from 0 (close) to 1 (far), for ranking near misses:
    /// for two JSON strings the edit distance (Levenshtein, over their first `Self.distancePrefix`
    /// bytes) divided by the longer length; 1 for anything else (no value in the record, two
    /// numbers, objects, a string against a number): only strings are judged closer or farther.
    public var distance: Double {
        guard let actual, let a = Self.stringContent(expected), let b = Self.stringContent(actual) else { return 1 }
        let longer = max(a.count, b.count)
        guard longer > 0 else { return 0 }
        return Double(Self.editDistance(a, b)) / Double(longer)
    }

    /// Bytes of each string `distance` compares: it costs at most this squared.
    public static let distancePrefix = 128

    /// The first `distancePrefix` bytes inside the quotes of a JSON string literal; nil for any
    /// other JSON text.
    static func stringContent(_ json: String) -> [UInt8]? {
        let bytes = Array(json.utf8)
        guard bytes.count >= 2, bytes.first == 0x22, bytes.last == 0x22 else { return nil }
        return Array(bytes[1..<(bytes.count - 1)].prefix(distancePrefix))
    }

    /// The Levenshtein distance of two byte strings (insertions, deletions, substitutions).
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    enum CodingKeys: String, CodingKey {
        case field, expected, actual
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(field, forKey: .field)
        try container.encode(expected, forKey: .expected)
        // Always present: null says the record had no value.
        try container.encode(actual, forKey: .actual)
    }
}
