import JSONInput
import JSONSupport

/// One step of a `sequence` action: a fault, or `pass` (no fault: the push is answered
/// normally, or by a later rule).
///
/// JSON: `"pass"` or an action object, e.g. `[{"type":"respond","reason":"ServiceUnavailable"}, "pass"]`.
public enum FaultStep: Sendable, Hashable, Codable, CustomStringConvertible {
    case pass
    case action(FaultAction)

    public var description: String {
        switch self {
        case .pass: return "pass"
        case .action(let action): return action.description
        }
    }

    public init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            guard text == "pass" else {
                throw InputError(
                    at: decoder.codingPath,
                    "expected \"pass\" or an action object, got \(InputError.quoted(text))")
            }
            self = .pass
        } else {
            self = .action(try FaultAction(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .pass:
            var container = encoder.singleValueContainer()
            try container.encode("pass")
        case .action(let action):
            try action.encode(to: encoder)
        }
    }
}
