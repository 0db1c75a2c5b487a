import Foundation

/// A parsed JSON value as `StrictJSONDecoder` walks it. Built by Foundation's `JSONDecoder`
/// (`JSONNode.parse`), which parses; this only keeps the kinds apart.
///
/// Also the model's way to take a value of any kind at one key (a name or a number, a string
/// or null) and word its own message with `rendered`:
///
/// ```swift
/// switch try container.decodeIfPresent(JSONNode.self, forKey: .errorCode) {
/// case .string(let name)?: ...
/// case .int(let number)?: ...
/// case let other?: throw InputError(at: ..., "expected a name or a number, got \(other.rendered)")
/// case nil: ...
/// }
/// ```
///
/// The project's one JSON value type: what input is read as, and what the control API builds its
/// answers from (encoded by Foundation: `ControlResponse` sorts keys; a non-finite double is
/// written as `null`).
///
/// Decoding a `JSONNode` reads the whole value: keys inside it are never refused as unknown.
/// Under another decoder (Foundation's `JSONDecoder`) it is rebuilt from that decoder's
/// containers, kind by kind.
public enum JSONNode: Sendable, Equatable, Codable, ExpressibleByDictionaryLiteral {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integral number that fits `Int64` (`2197`, `2197.0`, `2.197e3`).
    case int(Int64)
    /// An integral number above `Int64.max` that fits `UInt64`.
    case uint(UInt64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONNode])
    /// Members by key. A repeated key is refused before (`JSONSyntaxCheck`) in strict JSON;
    /// in JSON5 Foundation keeps the first.
    case object([String: JSONNode])

    /// The value as written in a message's "got ...": scalars as JSON text (strings quoted and
    /// cut at 60 characters), containers by kind (`an array`, `an object`).
    public var rendered: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .uint(let value): return String(value)
        case .double(let value): return value.description
        case .string(let text): return InputError.quoted(text)
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// An object from a literal.
    public init(dictionaryLiteral elements: (String, JSONNode)...) {
        self = .object(Dictionary(uniqueKeysWithValues: elements))
    }

    /// `value` as a string, or `null` when absent.
    package static func string(_ value: String?) -> JSONNode { value.map(JSONNode.string) ?? .null }
    /// `value` as an integer, or `null` when absent.
    package static func int(_ value: Int64?) -> JSONNode { value.map(JSONNode.int) ?? .null }

    // Shared: Sendable, and it saves building one per value.
    private static let decoder = JSONDecoder()

    /// Decodes `bytes` as one JSON value of any type (RFC 8259, UTF-8; a repeated key keeps its
    /// first value), numbers as delivery records write payloads: an integral value that fits
    /// `Int64` as `.int`, any other as `.double` (never `.uint`). Throws Foundation's
    /// `DecodingError` when it is not JSON or nests deeper than Foundation allows (512).
    public init(decoding bytes: [UInt8]) throws {
        self = try Self.decoder.decode(Builder.self, from: Data(bytes)).node.unsignedAsDouble
    }

    /// The value with every `.uint` turned into the `.double` of the same number.
    private var unsignedAsDouble: JSONNode {
        switch self {
        case .uint(let number): .double(Double(number))
        case .array(let items): .array(items.map(\.unsignedAsDouble))
        case .object(let members): .object(members.mapValues(\.unsignedAsDouble))
        default: self
        }
    }

    /// Encodes the value; a non-finite double as `null`, which JSON cannot otherwise express.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .int(let number): try container.encode(number)
        case .uint(let number): try container.encode(number)
        case .double(let number) where number.isFinite: try container.encode(number)
        case .double: try container.encodeNil()
        case .string(let text): try container.encode(text)
        case .array(let items): try container.encode(items)
        case .object(let members): try container.encode(members)
        }
    }

    /// Decodes any JSON value (see the type's comment).
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? NodeDecoder {
            self = decoder.node
        } else {
            self = try Builder(from: decoder).node
        }
    }

    /// Parses `bytes` (UTF-8) with Foundation's `JSONDecoder`, in JSON5 when `json5`.
    static func parse(_ bytes: [UInt8], json5: Bool) throws -> JSONNode {
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = json5
        return try decoder.decode(Builder.self, from: json5 ? foundationJSON5(bytes) : Data(bytes)).node
    }

    /// `bytes` as Foundation's JSON5 reader must get them: with a newline after them. Its scanner
    /// (`JSON5Scanner.validateNumber`, Swift 6.3 on Linux) reads past a number that ends the
    /// document and can trap on a huge exponent there (`2e4990000002003764`: found by
    /// `ConfigurationFuzz`, docs/fuzzing.md); trailing whitespace changes nothing else.
    package static func foundationJSON5(_ bytes: [UInt8]) -> Data {
        var data = Data(capacity: bytes.count + 1)
        data.append(contentsOf: bytes)
        data.append(0x0A)
        return data
    }

    /// Decodes whichever kind the value is. Foundation cannot be asked for the kind, so each is
    /// tried in turn (a wrong guess throws `typeMismatch`); `Bool` never matches a number nor a
    /// number `Bool`.
    struct Builder: Decodable {
        let node: JSONNode

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                node = .null
            } else if let value = try Self.ifKind({ try container.decode(Bool.self) }) {
                node = .bool(value)
            } else if let value = try Self.ifKind({ try container.decode(String.self) }) {
                node = .string(value)
            } else if let value = try Self.ifKind({ try container.decode([String: Builder].self) }) {
                node = .object(value.mapValues(\.node))
            } else if let value = try Self.ifKind({ try container.decode([Builder].self) }) {
                node = .array(value.map(\.node))
            } else if let value = try? container.decode(Int64.self) {
                node = .int(value)
            } else if let value = try? container.decode(UInt64.self) {
                node = .uint(value)
            } else {
                // Fractions and integers beyond 64 bits; a malformed number throws here.
                let value = try container.decode(Double.self)
                node = .double(value)
            }
        }

        private static func ifKind<T>(_ decode: () throws -> T) throws -> T? {
            do {
                return try decode()
            } catch DecodingError.typeMismatch {
                return nil
            }
        }
    }
}
