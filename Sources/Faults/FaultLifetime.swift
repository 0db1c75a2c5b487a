import JSONInput
import JSONSupport

/// How long a fault rule stays in force (issue "Fault injection"; docs/field-cases.md C1-C16).
///
/// JSON: `"unlimited"` (the default when absent), `{"times": N}`, `{"timesPerConnection": N}`
/// or `{"until": <time>}`. A `sequence` action ends its rule by itself when its steps run out.
public enum FaultLifetime: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Never spent (removed only through the control API).
    case unlimited
    /// Spent after its first `N` matches.
    case times(Int)
    /// The first `N` matches on each connection; never spent as a whole. The count of a
    /// connection is forgotten when it closes (`FaultEngine.connectionClosed(id:)`).
    case timesPerConnection(Int)
    /// Spent from this moment on (inclusive).
    case until(ISO8601Timestamp)

    public var description: String {
        switch self {
        case .unlimited: return "unlimited"
        case .times(let count): return "times \(count)"
        case .timesPerConnection(let count): return "times \(count) per connection"
        case .until(let instant): return "until \(instant)"
        }
    }

    /// Range checks; `path` names the field in errors.
    func validate(at path: String) throws(FaultRuleError) {
        switch self {
        case .unlimited, .until: return
        case .times(let count), .timesPerConnection(let count):
            guard count >= 1 else {
                let key = if case .times = self { "times" } else { "timesPerConnection" }
                throw FaultRuleError(field: FaultRuleError.join(path, key), message: "must be at least 1, got \(count)")
            }
        }
    }

    private static let keys = ["times", "timesPerConnection", "until"]

    public init(from decoder: any Decoder) throws {
        let path = InputError.path(decoder.codingPath)
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            guard text == "unlimited" else {
                throw InputError(
                    path: path,
                    message: "expected \"unlimited\" or an object with one of "
                        + "\(Self.keys.joined(separator: ", ")); got \(InputError.quoted(text))")
            }
            self = .unlimited
            return
        }
        let object = try FaultObjectReader(decoder, keys: Self.keys)
        let count = "an integer of at least 1"
        switch try object.exactlyOne(of: Self.keys) {
        case "times": self = .times(try object.required("times", Int.self, expected: count))
        case "timesPerConnection":
            self = .timesPerConnection(try object.required("timesPerConnection", Int.self, expected: count))
        default:
            self = .until(
                try object.required("until", ISO8601Timestamp.self, expected: ISO8601Timestamp.inputExpectation))
        }
        try object.validated { () throws(FaultRuleError) in try validate(at: path) }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .unlimited:
            var container = encoder.singleValueContainer()
            try container.encode("unlimited")
        case .times(let count):
            var container = encoder.container(keyedBy: FaultCodingKey.self)
            try container.encode(count, forKey: FaultCodingKey("times"))
        case .timesPerConnection(let count):
            var container = encoder.container(keyedBy: FaultCodingKey.self)
            try container.encode(count, forKey: FaultCodingKey("timesPerConnection"))
        case .until(let instant):
            var container = encoder.container(keyedBy: FaultCodingKey.self)
            try container.encode(instant, forKey: FaultCodingKey("until"))
        }
    }
}
