import JSONInput
import JSONSupport

/// A condition on the JSON payload of a fault rule's `match.payload`.
///
/// JSON: `{"path": "aps.alert.title", "equals": "Hi"}`, or `"present": true` / `"absent": true`
/// instead of `equals`. The path is dot-separated; a numeric segment indexes an array
/// (`aps.items.0`); keys containing dots cannot be addressed. `equals` takes any JSON value and
/// compares numbers by value (`1` equals `1.0`), never a boolean with a number.
public struct PayloadCondition: Sendable, Equatable, Codable, CustomStringConvertible {
    /// What the value at `path` must be.
    public enum Test: Sendable, Equatable {
        case equals(JSONNode)
        case present
        case absent
    }

    /// Dot path, e.g. `aps.alert.title`.
    public var path: String
    public var test: Test

    public init(path: String, test: Test) {
        self.path = path
        self.test = test
    }

    /// `equals` shorthand.
    public init(path: String, equals value: JSONNode) { self.init(path: path, test: .equals(value)) }

    /// The path split at dots.
    var segments: [Substring] { path.split(separator: ".", omittingEmptySubsequences: false) }

    public var description: String {
        switch test {
        case .equals(let value): return "\(path) equals \(FaultRuleError.render(value))"
        case .present: return "\(path) present"
        case .absent: return "\(path) absent"
        }
    }

    func validate(at path: String) throws(FaultRuleError) {
        guard !self.path.isEmpty, !segments.contains(where: \.isEmpty) else {
            throw FaultRuleError(
                field: FaultRuleError.join(path, "path"),
                message: "expected a dot path such as "
                    + "\"aps.alert.title\" (no empty segments), got \(InputError.quoted(self.path))")
        }
    }

    private static let keys = ["path", "equals", "present", "absent"]

    public init(from decoder: any Decoder) throws {
        let object = try FaultObjectReader(decoder, keys: Self.keys)
        path = try object.required("path", String.self, expected: "a dot path such as \"aps.alert.title\"")
        switch try object.exactlyOne(of: ["equals", "present", "absent"]) {
        case "equals":
            test = .equals(try object.json("equals") ?? .null)
        case "present":
            try object.trueFlag("present", opposite: "absent")
            test = .present
        default:
            try object.trueFlag("absent", opposite: "present")
            test = .absent
        }
        try object.validated { () throws(FaultRuleError) in try validate(at: object.path) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FaultCodingKey.self)
        try container.encode(path, forKey: FaultCodingKey("path"))
        switch test {
        case .equals(let value): try container.encode(value, forKey: FaultCodingKey("equals"))
        case .present: try container.encode(true, forKey: FaultCodingKey("present"))
        case .absent: try container.encode(true, forKey: FaultCodingKey("absent"))
        }
    }
}
