import JSONInput
import JSONSupport

/// A moment for fault time windows and lifetimes, in milliseconds since the Unix epoch.
///
/// JSON: an ISO 8601 string (`"2026-11-30T08:49:03.123Z"`, any offset) or an integer number
/// of milliseconds since the epoch (`1796028543123`). Written back as the ISO 8601 string,
/// exact to the millisecond.
public struct FaultInstant: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Milliseconds since the Unix epoch.
    public var epochMilliseconds: Int64

    public init(epochMilliseconds: Int64) { self.epochMilliseconds = epochMilliseconds }

    public static func < (lhs: FaultInstant, rhs: FaultInstant) -> Bool {
        lhs.epochMilliseconds < rhs.epochMilliseconds
    }

    /// The ISO 8601 form, e.g. `2026-11-30T08:49:03.123Z`.
    public var description: String { ISO8601Millis.format(epochMilliseconds: epochMilliseconds) }

    static let expected =
        "an ISO 8601 time such as \"2026-11-30T08:49:03.123Z\" or an integer of milliseconds since the epoch"

    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(JSONNode.self)
        switch value {
        case .string(let text):
            guard let ms = ISO8601Millis.parse(text) else {
                throw InputError(at: decoder.codingPath, "expected \(Self.expected), got \(value.rendered)")
            }
            epochMilliseconds = ms
        case .int(let ms) where ms >= 0:
            epochMilliseconds = ms
        default:
            throw InputError(at: decoder.codingPath, "expected \(Self.expected), got \(value.rendered)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
