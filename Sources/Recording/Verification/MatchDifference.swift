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
