import JSONInput
import JSONSupport

/// Reads one JSON object of a configuration file: refuses unknown keys, and converts values with
/// errors that name the field path and what was expected. (A key written twice cannot be
/// refused: the decoder keeps the first and drops the others, see `JSONValue.object`.)
struct JSONObjectReader {
    /// The object's own path, e.g. `listeners[0]`; empty for the document.
    let path: String
    private let values: [String: JSONValue]

    /// Fails when `value` is not an object, or has a key outside `keys`.
    init(_ value: JSONValue, path: String, keys: [String]) throws(ConfigurationError) {
        guard case .object(let members) = value else {
            throw ConfigurationError(field: path, message: "expected an object, got \(value.rendered)")
        }
        self.path = path
        var values: [String: JSONValue] = [:]
        for member in members {
            let field = Self.join(path, member.key)
            guard keys.contains(member.key) else {
                let suggestion = ClosestMatch.hint(member.key, among: keys)
                throw ConfigurationError(
                    field: field,
                    message: "unknown key\(suggestion); valid keys here: \(keys.joined(separator: ", "))")
            }
            values[member.key] = member.value
        }
        self.values = values
    }

    /// The value of `key`, `nil` when absent (an explicit `null` is `.null`).
    subscript(key: String) -> JSONValue? { values[key] }

    /// The field path of `key` in this object.
    func field(_ key: String) -> String { Self.join(path, key) }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    // Readers for optional keys: `nil` when the key is absent.

    func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        try values[key].map { value throws(ConfigurationError) in try value.integer(at: field(key), in: range) }
    }

    func boolean(_ key: String) throws(ConfigurationError) -> Bool? {
        try values[key].map { value throws(ConfigurationError) in try value.boolean(at: field(key)) }
    }

    func text(_ key: String, expected: String = "a non-empty string") throws(ConfigurationError) -> String? {
        try values[key].map { value throws(ConfigurationError) in try value.text(at: field(key), expected: expected) }
    }

    func choice<Choice>(_ key: String, _ type: Choice.Type) throws(ConfigurationError) -> Choice?
    where Choice: RawRepresentable & CaseIterable, Choice.RawValue == String {
        try values[key].map { value throws(ConfigurationError) in try value.choice(at: field(key), type) }
    }
}

extension JSONValue {
    /// A whole number in `range`. `2197.0` and `2.197e3` are accepted as 2197; `1.5` is not.
    /// `expected` replaces the range's wording in the error message.
    func integer(at field: String, in range: ClosedRange<Int>, expected: String? = nil) throws(ConfigurationError)
        -> Int
    {
        let expected = expected ?? ConfigurationLimits.expectation(range)
        guard case .number(let text) = self, let value = JSONValue.wholeNumber(text), range.contains(value) else {
            throw ConfigurationError(field: field, message: "expected \(expected), got \(rendered)")
        }
        return value
    }

    /// The integer a number denotes, `nil` when it has a fraction or does not fit `Int`. Numbers
    /// are canonical (`JSONValue.number`), so every whole one in range is plain digits.
    static func wholeNumber(_ text: String) -> Int? { Int(text) }

    func boolean(at field: String) throws(ConfigurationError) -> Bool {
        guard case .bool(let value) = self else {
            throw ConfigurationError(field: field, message: "expected true or false, got \(rendered)")
        }
        return value
    }

    func text(at field: String, expected: String = "a non-empty string") throws(ConfigurationError) -> String {
        guard case .string(let value) = self, !value.isEmpty else {
            throw ConfigurationError(field: field, message: "expected \(expected), got \(rendered)")
        }
        return value
    }

    /// One of an enumeration's raw values, with a suggestion for a near miss.
    func choice<Choice>(at field: String, _ type: Choice.Type) throws(ConfigurationError) -> Choice
    where Choice: RawRepresentable & CaseIterable, Choice.RawValue == String {
        let names = Choice.allCases.map(\.rawValue)
        if case .string(let value) = self, let choice = Choice(rawValue: value) { return choice }
        var message = "expected one of \(names.map(JSONValue.quoted).joined(separator: ", ")), got \(rendered)"
        if case .string(let value) = self, let near = ClosestMatch.find(value, among: names) {
            message += " (did you mean \(JSONValue.quoted(near))?)"
        }
        throw ConfigurationError(field: field, message: message)
    }

    /// An address written `"HOST:PORT"`.
    func address(at field: String) throws(ConfigurationError) -> HostPort {
        guard case .string(let value) = self else {
            throw ConfigurationError(field: field, message: "expected \"\(HostPort.syntax)\", got \(rendered)")
        }
        do {
            return try HostPort.parse(value)
        } catch {
            throw ConfigurationError(
                field: field, message: "expected \"\(HostPort.syntax)\", got \(rendered): \(error.hint)")
        }
    }
}
