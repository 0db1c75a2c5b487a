import JSONInput
import JSONSupport

/// A fault rule (or scenario) that cannot be used: a wrong key, type or value. The description
/// names the field, for example `action.status: must be 400-599, got 200` or
/// `faults[2].match.probability: must be within 0 and 1, got 1.5`.
public struct FaultRuleError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The path of the offending field, e.g. `action.steps[1].status`; empty for the rule as a whole.
    public var field: String
    /// What is wrong, and what was expected.
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }

    /// A decoding error as a rule error: the field path and the message; a syntax error's message
    /// starts with `not valid JSON: ` and carries its line and column (`not valid JSON: line 1,
    /// column 2: ...`).
    package init(_ error: InputError) {
        if error.line != nil || (error.path.isEmpty && error.message.hasPrefix("the document is empty")) {
            self.init(field: "", message: "not valid JSON: \(error.description)")
        } else if error.path.isEmpty, error.message.hasPrefix("not valid JSON") {
            self.init(field: "", message: error.message)
        } else {
            self.init(field: error.path, message: error.message)
        }
    }

    /// The error as decoding reports it, for a model's `init(from:)`.
    package var inputError: InputError { InputError(path: field, message: message) }

    /// `field: message`, or the message alone when the field is empty.
    public var description: String { field.isEmpty ? message : "\(field): \(message)" }

    /// The same error with `prefix` put before its field, e.g. `[2]` or `parameters`.
    func prefixed(_ prefix: String) -> FaultRuleError {
        FaultRuleError(field: Self.join(prefix, field), message: message)
    }

    /// A coding path as a field path: `faults[0].action.status`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var path = ""
        for key in codingPath {
            if let index = key.intValue { path += "[\(index)]" } else { path = join(path, key.stringValue) }
        }
        return path
    }

    /// `parent.child`, `parent[1]` or `child` when there is no parent.
    package static func join(_ parent: String, _ child: String) -> String {
        if parent.isEmpty { return child }
        if child.isEmpty { return parent }
        return child.hasPrefix("[") ? parent + child : "\(parent).\(child)"
    }

    /// A short rendering of a JSON value for "got ..." in messages.
    package static func render(_ value: JSONNode?) -> String {
        switch value {
        case nil: return "something else"
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .uint(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let text): return InputError.quoted(text)
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
