import APNsCore
import JSONInput
import JSONSupport

/// A condition on one request header of a fault rule's `match.headers`.
///
/// JSON: `{"present": true}`, `{"absent": true}` or `{"equals": "value"}` (exact, case-sensitive
/// value; any of the header's fields may match when it is repeated).
public enum HeaderCondition: Sendable, Hashable, Codable, CustomStringConvertible {
    case present
    case absent
    case equals(String)

    public var description: String {
        switch self {
        case .present: return "present"
        case .absent: return "absent"
        case .equals(let value): return "equals \(InputError.quoted(value))"
        }
    }

    /// Whether the header `name` (lowercase) of `headers` satisfies the condition.
    func holds(for name: String, in headers: [HeaderField]) -> Bool {
        switch self {
        case .present: return headers.contains { $0.name == name }
        case .absent: return !headers.contains { $0.name == name }
        case .equals(let value): return headers.contains { $0.name == name && $0.value == value }
        }
    }

    private static let keys = ["present", "absent", "equals"]

    public init(from decoder: any Decoder) throws {
        let object = try FaultObjectReader(decoder, keys: Self.keys)
        switch try object.exactlyOne(of: Self.keys) {
        case "equals":
            self = .equals(try object.required("equals", String.self, expected: "a string"))
        case "present":
            try object.trueFlag("present", opposite: "absent")
            self = .present
        default:
            try object.trueFlag("absent", opposite: "present")
            self = .absent
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FaultCodingKey.self)
        switch self {
        case .present: try container.encode(true, forKey: FaultCodingKey("present"))
        case .absent: try container.encode(true, forKey: FaultCodingKey("absent"))
        case .equals(let value): try container.encode(value, forKey: FaultCodingKey("equals"))
        }
    }
}
