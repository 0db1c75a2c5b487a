import JSONInput
import JSONSupport

/// Reads one JSON object of a fault rule inside `init(from:)`, under `StrictJSONDecoder` (or any
/// other decoder): refuses unknown keys (with a "did you mean"), treats `null` as absent, and
/// words each field's error by what it expects (`action.status: expected an integer from 400 to
/// 599, got "503"`). Every error it throws is an `InputError` at the field's path; errors of
/// nested models (themselves `InputError`s with their own paths) pass through unchanged.
struct FaultObjectReader {
    /// The object's own field path, e.g. `faults[0].action`.
    let path: String
    private let container: KeyedDecodingContainer<FaultCodingKey>

    /// Fails when the value is not an object, or has a key outside `keys` (nil: no check yet,
    /// call `allow(_:)` once the keys are known, e.g. after reading an action's `type`).
    init(_ decoder: any Decoder, keys: [String]?) throws {
        path = InputError.path(decoder.codingPath)
        do {
            container = try decoder.container(keyedBy: FaultCodingKey.self)
        } catch {
            let got = (try? decoder.singleValueContainer().decode(JSONNode.self))?.rendered ?? "something else"
            throw InputError(path: path, message: "expected an object, got \(got)")
        }
        if let keys { try allow(keys) }
    }

    /// Refuses any key not in `keys`.
    func allow(_ keys: [String]) throws(InputError) {
        for key in container.allKeys.map(\.stringValue).sorted() where !keys.contains(key) {
            let suggestion = ClosestMatch.hint(key, among: keys)
            throw InputError(
                path: field(key), message: "unknown key\(suggestion); valid keys here: \(keys.joined(separator: ", "))")
        }
    }

    /// The field path of `key`.
    func field(_ key: String) -> String { InputError.join(path, key) }

    /// An error about `key`'s value.
    func error(_ key: String, _ message: String) -> InputError { InputError(path: field(key), message: message) }

    /// An error about the object as a whole.
    func error(_ message: String) -> InputError { InputError(path: path, message: message) }

    /// Runs a model's `validate(at:)`, its `FaultRuleError` as an `InputError`.
    func validated(_ check: () throws(FaultRuleError) -> Void) throws(InputError) {
        do {
            try check()
        } catch {
            throw error.inputError
        }
    }

    /// The keys present, in no particular order.
    var keys: [String] { container.allKeys.map(\.stringValue) }

    /// True when `key` is present and not `null`.
    func has(_ key: String) -> Bool {
        let codingKey = FaultCodingKey(key)
        return container.contains(codingKey) && !((try? container.decodeNil(forKey: codingKey)) ?? false)
    }

    /// The one key of `choices` present; fails when none or several are.
    func exactlyOne(of choices: [String]) throws(InputError) -> String {
        let present = keys.filter(choices.contains).sorted()
        guard present.count == 1 else {
            let got = present.isEmpty ? "none" : present.joined(separator: ", ")
            throw error("expected exactly one of \(choices.joined(separator: ", ")); got \(got)")
        }
        return present[0]
    }

    /// A `"present": true` style flag: fails unless `key` is `true`, pointing to `opposite`.
    func trueFlag(_ key: String, opposite: String) throws {
        guard try optional(key, Bool.self, expected: "true") == true else {
            throw error(key, "must be true (use \(opposite) for the opposite)")
        }
    }

    /// The value of `key` as `T`, nil when absent or `null`. `expected` words the type for the
    /// error, e.g. "an integer": a scalar (`FaultScalar`) or a collection of the wrong kind is
    /// refused as `expected <expected>, got <value>`; a model's own errors pass through.
    func optional<T: Decodable>(_ key: String, _ type: T.Type, expected: String) throws -> T? {
        guard has(key) else { return nil }
        let codingKey = FaultCodingKey(key)
        let node = try container.decode(JSONNode.self, forKey: codingKey)
        let mismatch = error(key, "expected \(expected), got \(node.rendered)")
        if let scalar = T.self as? any FaultScalar.Type {
            guard let value = scalar.init(node: node) as? T else { throw mismatch }
            return value
        }
        if let collection = T.self as? any FaultCollection.Type, !collection.accepts(node) { throw mismatch }
        return try container.decode(T.self, forKey: codingKey)
    }

    /// The value of `key` as `T`; fails when absent or `null`.
    func required<T: Decodable>(_ key: String, _ type: T.Type, expected: String) throws -> T {
        guard let value = try optional(key, type, expected: expected) else {
            throw error(key, "required: \(expected)")
        }
        return value
    }

    /// Any JSON value of `key`, `null` included; nil only when the key is absent.
    func json(_ key: String) throws -> JSONNode? {
        let codingKey = FaultCodingKey(key)
        guard container.contains(codingKey) else { return nil }
        return try container.decode(JSONNode.self, forKey: codingKey)
    }
}

/// A JSON scalar a fault rule field may be, read from the value as parsed (no decoder error to
/// reword): strings, booleans, and numbers that fit the type exactly (`5.0` is the integer 5).
protocol FaultScalar {
    init?(node: JSONNode)
}

extension String: FaultScalar {
    init?(node: JSONNode) {
        guard case .string(let text) = node else { return nil }
        self = text
    }
}

extension Bool: FaultScalar {
    init?(node: JSONNode) {
        guard case .bool(let flag) = node else { return nil }
        self = flag
    }
}

extension Double: FaultScalar {
    init?(node: JSONNode) {
        switch node {
        case .int(let number): self = Double(number)
        case .uint(let number): self = Double(number)
        case .double(let number): self = number
        default: return nil
        }
    }
}

extension FixedWidthInteger {
    /// The integer `node` is, nil when it is not one or does not fit.
    init?(integerNode node: JSONNode) {
        switch node {
        case .int(let number):
            guard let value = Self(exactly: number) else { return nil }
            self = value
        case .uint(let number):
            guard let value = Self(exactly: number) else { return nil }
            self = value
        default: return nil
        }
    }
}

extension Int: FaultScalar { init?(node: JSONNode) { self.init(integerNode: node) } }
extension Int32: FaultScalar { init?(node: JSONNode) { self.init(integerNode: node) } }
extension Int64: FaultScalar { init?(node: JSONNode) { self.init(integerNode: node) } }
extension UInt32: FaultScalar { init?(node: JSONNode) { self.init(integerNode: node) } }
extension UInt64: FaultScalar { init?(node: JSONNode) { self.init(integerNode: node) } }

/// An array or object field: a value of the other kind is refused by the reader with the
/// field's own wording.
protocol FaultCollection {
    static func accepts(_ node: JSONNode) -> Bool
}

extension Array: FaultCollection {
    static func accepts(_ node: JSONNode) -> Bool {
        if case .array = node { return true }
        return false
    }
}

extension Dictionary: FaultCollection {
    static func accepts(_ node: JSONNode) -> Bool {
        if case .object = node { return true }
        return false
    }
}

/// Any string (or index) as a coding key, for objects whose keys are checked by hand.
struct FaultCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension UInt64 {
    /// The seed `node` is: an integer from 0 to 2^64-1 (a JSON number with no fraction, also
    /// written with an exponent), nil otherwise. Every seed reads this way, a rule's and a
    /// scenario's alike (docs/control-api.openapi.json: unsigned 64-bit).
    init?(seedNode node: JSONNode) {
        if case .double(let number) = node {
            guard let value = UInt64(exactly: number) else { return nil }
            self = value
            return
        }
        self.init(integerNode: node)
    }

    /// What a seed must be, as errors say it.
    static let seedExpectation = "an integer from 0 to 18446744073709551615"
}
