import JSONInput
import JSONSupport

/// Reads one JSON object of a fault rule inside `init(from:)`: refuses unknown keys (with a
/// "did you mean"), treats `null` as absent, and turns Foundation's decoding errors into
/// `FaultRuleError`s naming the field and what was expected. Only `FaultRuleError` escapes.
struct FaultObjectReader {
    /// The object's own field path, e.g. `faults[0].action`.
    let path: String
    private let container: KeyedDecodingContainer<FaultCodingKey>

    /// Fails when the value is not an object, or has a key outside `keys` (nil: no check yet,
    /// call `allow(_:)` once the keys are known, e.g. after reading an action's `type`).
    init(_ decoder: any Decoder, keys: [String]?) throws {
        path = FaultRuleError.path(decoder.codingPath)
        do {
            container = try decoder.container(keyedBy: FaultCodingKey.self)
        } catch {
            let got = try? decoder.singleValueContainer().decode(ControlJSON.self)
            throw FaultRuleError(field: path, message: "expected an object, got \(FaultRuleError.render(got))")
        }
        if let keys { try allow(keys) }
    }

    /// Refuses any key not in `keys`.
    func allow(_ keys: [String]) throws(FaultRuleError) {
        for key in container.allKeys.map(\.stringValue).sorted() where !keys.contains(key) {
            let suggestion = ClosestMatch.hint(key, among: keys)
            throw FaultRuleError(
                field: field(key),
                message: "unknown key\(suggestion); valid keys here: \(keys.joined(separator: ", "))")
        }
    }

    /// The field path of `key`.
    func field(_ key: String) -> String { FaultRuleError.join(path, key) }

    /// The keys present, in no particular order.
    var keys: [String] { container.allKeys.map(\.stringValue) }

    /// True when `key` is present and not `null`.
    func has(_ key: String) -> Bool {
        let codingKey = FaultCodingKey(key)
        return container.contains(codingKey) && !((try? container.decodeNil(forKey: codingKey)) ?? false)
    }

    /// The one key of `choices` present; fails when none or several are.
    func exactlyOne(of choices: [String]) throws(FaultRuleError) -> String {
        let present = keys.filter(choices.contains).sorted()
        guard present.count == 1 else {
            let got = present.isEmpty ? "none" : present.joined(separator: ", ")
            throw FaultRuleError(
                field: path, message: "expected exactly one of \(choices.joined(separator: ", ")); got \(got)")
        }
        return present[0]
    }

    /// A `"present": true` style flag: fails unless `key` is `true`, pointing to `opposite`.
    func trueFlag(_ key: String, opposite: String) throws {
        guard try optional(key, Bool.self, expected: "true") == true else {
            throw FaultRuleError(field: field(key), message: "must be true (use \(opposite) for the opposite)")
        }
    }

    /// The value of `key` as `T`, nil when absent or `null`. `expected` words the type for the
    /// error, e.g. "an integer".
    func optional<T: Decodable>(_ key: String, _ type: T.Type, expected: String) throws -> T? {
        guard has(key) else { return nil }
        let codingKey = FaultCodingKey(key)
        do {
            return try container.decode(T.self, forKey: codingKey)
        } catch let error as FaultRuleError {
            throw error
        } catch {
            let got = try? container.decode(ControlJSON.self, forKey: codingKey)
            throw FaultRuleError(field: field(key), message: "expected \(expected), got \(FaultRuleError.render(got))")
        }
    }

    /// The value of `key` as `T`; fails when absent or `null`.
    func required<T: Decodable>(_ key: String, _ type: T.Type, expected: String) throws -> T {
        guard let value = try optional(key, type, expected: expected) else {
            throw FaultRuleError(field: field(key), message: "required: \(expected)")
        }
        return value
    }

    /// Any JSON value of `key`, `null` included; nil only when the key is absent.
    func json(_ key: String) throws -> ControlJSON? {
        let codingKey = FaultCodingKey(key)
        guard container.contains(codingKey) else { return nil }
        return try optional(key, ControlJSON.self, expected: "a JSON value") ?? .null
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
