import JSONInput

/// Reads one JSON object of a configuration file, as `StrictJSONDecoder` parsed it
/// (`JSONNode`): refuses unknown keys, and converts values with errors that name the field path
/// and what was expected. (A key written twice is refused when the document is parsed.)
struct JSONObjectReader {
    /// The object's own path, e.g. `listeners[0]`; empty for the document.
    let path: String
    private let values: [String: JSONNode]

    /// Fails when `value` is not an object, or has a key outside `keys` (the first in key order).
    init(_ value: JSONNode, path: String, keys: [String]) throws(ConfigurationError) {
        guard case .object(let members) = value else {
            throw ConfigurationError(field: path, message: "expected an object, got \(value.rendered)")
        }
        self.path = path
        for key in members.keys.sorted() where !keys.contains(key) {
            let suggestion = ClosestMatch.hint(key, among: keys)
            throw ConfigurationError(
                field: Self.join(path, key),
                message: "unknown key\(suggestion); valid keys here: \(keys.joined(separator: ", "))")
        }
        values = members
    }

    /// The value of `key`, `nil` when absent (an explicit `null` is `.null`).
    subscript(key: String) -> JSONNode? { values[key] }

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
