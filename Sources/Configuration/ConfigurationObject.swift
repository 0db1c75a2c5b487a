import JSONInput

/// Reads one JSON object of a configuration file inside `StrictJSONDecoder`'s decoding: its keys
/// are `keys` (an unknown key is refused at once, with a "did you mean" and this list, in the
/// decoder's wording), and values convert with errors that name the field path and what was
/// expected (`JSONNode`'s configuration readers). Every error is a `ConfigurationError`.
struct ConfigurationObject {
    /// The object's own path, e.g. `listeners[0]`; empty for the document.
    let path: String
    private let container: KeyedDecodingContainer<ConfigurationKey>

    /// Fails when the value is not an object.
    init(_ decoder: any Decoder, keys: [String]) throws(ConfigurationError) {
        path = InputError.path(decoder.codingPath)
        do {
            container = try decoder.container(keyedBy: ConfigurationKey.self)
        } catch {
            throw Self.configurationError(error, path: path)
        }
        // Named in order: the valid keys of an unknown-key error, as listed here.
        for key in keys { _ = container.contains(ConfigurationKey(key)) }
        // Refused before any value is read, so a typo is named rather than the key it misses
        // (the decoder would refuse it too, but only once the whole document was read).
        for key in container.allKeys.map(\.stringValue).sorted() where !keys.contains(key) {
            throw ConfigurationError(
                field: InputError.join(path, key),
                message: "unknown key\(ClosestMatch.hint(key, among: keys)); valid keys here: "
                    + keys.joined(separator: ", "))
        }
    }

    /// The value of `key`, `nil` when absent (an explicit `null` is `.null`).
    subscript(key: String) -> JSONNode? {
        let codingKey = ConfigurationKey(key)
        guard container.contains(codingKey) else { return nil }
        return try? container.decode(JSONNode.self, forKey: codingKey)
    }

    /// The field path of `key` in this object.
    func field(_ key: String) -> String { InputError.join(path, key) }

    /// A decoder of the value of `key` (present), for an object inside this one.
    func decoder(_ key: String) throws(ConfigurationError) -> any Decoder {
        do {
            return try container.superDecoder(forKey: ConfigurationKey(key))
        } catch {
            throw Self.configurationError(error, path: field(key))
        }
    }

    /// Decoders of the elements of the array at `key` (present, an array).
    func elements(_ key: String) throws(ConfigurationError) -> [any Decoder] {
        do {
            var array = try container.nestedUnkeyedContainer(forKey: ConfigurationKey(key))
            var decoders: [any Decoder] = []
            while !array.isAtEnd { decoders.append(try array.superDecoder()) }
            return decoders
        } catch {
            throw Self.configurationError(error, path: field(key))
        }
    }

    /// The value of `key` (present) decoded as `type`, e.g. a fault rule by its own decoding.
    func decode<T: Decodable>(_ type: T.Type, _ key: String) throws(ConfigurationError) -> T {
        do {
            return try container.decode(type, forKey: ConfigurationKey(key))
        } catch {
            throw Self.configurationError(error, path: field(key))
        }
    }

    /// A decoding error as a configuration error.
    static func configurationError(_ error: any Error, path: String) -> ConfigurationError {
        switch error {
        case let error as ConfigurationError: return error
        case let error as any InputErrorConvertible: return ConfigurationError(error.inputError)
        case let error as InputError: return ConfigurationError(error)
        default: return ConfigurationError(field: path, message: String(describing: error))
        }
    }

    // Readers for optional keys: `nil` when the key is absent.

    func integer(_ key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        try self[key].map { value throws(ConfigurationError) in try value.integer(at: field(key), in: range) }
    }

    func boolean(_ key: String) throws(ConfigurationError) -> Bool? {
        try self[key].map { value throws(ConfigurationError) in try value.boolean(at: field(key)) }
    }

    func text(_ key: String, expected: String = "a non-empty string") throws(ConfigurationError) -> String? {
        try self[key].map { value throws(ConfigurationError) in try value.text(at: field(key), expected: expected) }
    }

    func choice<Choice>(_ key: String, _ type: Choice.Type) throws(ConfigurationError) -> Choice?
    where Choice: RawRepresentable & CaseIterable, Choice.RawValue == String {
        try self[key].map { value throws(ConfigurationError) in try value.choice(at: field(key), type) }
    }
}

/// Any key of a configuration object.
struct ConfigurationKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
