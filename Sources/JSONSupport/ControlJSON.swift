import Foundation
import JSONInput

/// A JSON value as the control API builds its answers and holds decoded payloads. Encoding and
/// decoding are Foundation's (`ControlResponse` encodes with sorted keys; `JSONDecoder`
/// decodes), so a repeated key keeps its first value and numbers are read as `Int64` when they
/// fit, else `Double` (`1.0` is written back as `1`).
public enum ControlJSON: Sendable, Equatable, Codable, ExpressibleByDictionaryLiteral {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A signed integer.
    case int(Int64)
    /// An unsigned integer (sequence numbers, counters).
    case uint(UInt64)
    /// A floating-point number; non-finite ones are written as `null`.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([ControlJSON])
    /// An object; written with its keys sorted.
    case object([String: ControlJSON])

    /// An object from a literal.
    public init(dictionaryLiteral elements: (String, ControlJSON)...) {
        self = .object(Dictionary(uniqueKeysWithValues: elements))
    }

    /// A value as `StrictJSONDecoder` parsed it, kind for kind.
    public init(_ node: JSONNode) {
        switch node {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .int(let number): self = .int(number)
        case .uint(let number): self = .uint(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .array(let items): self = .array(items.map(ControlJSON.init))
        case .object(let members): self = .object(members.mapValues(ControlJSON.init))
        }
    }

    /// `value` as a string, or `null` when absent.
    package static func string(_ value: String?) -> ControlJSON { value.map(ControlJSON.string) ?? .null }
    /// `value` as an integer, or `null` when absent.
    package static func int(_ value: Int64?) -> ControlJSON { value.map(ControlJSON.int) ?? .null }

    // Shared: Sendable, and it saves building one per payload.
    private static let decoder = JSONDecoder()

    /// Decodes `bytes` as one JSON value of any type (RFC 8259, UTF-8); throws Foundation's
    /// `DecodingError` when it is not JSON or nests deeper than Foundation allows (512).
    public init(decoding bytes: [UInt8]) throws {
        self = try Self.decoder.decode(ControlJSON.self, from: Data(bytes))
    }

    /// Decodes whichever JSON type the value is. Foundation cannot be asked for the type, so
    /// each is tried in turn, the most common in payloads first (a wrong guess throws
    /// `typeMismatch` and costs about a microsecond). `Bool` never matches a number nor a
    /// number `Bool`, so the two stay distinct.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let text = try Self.ifOfType({ try container.decode(String.self) }) {
            self = .string(text)
        } else if let members = try Self.ifOfType({ try container.decode([String: ControlJSON].self) }) {
            self = .object(members)
        } else if let items = try Self.ifOfType({ try container.decode([ControlJSON].self) }) {
            self = .array(items)
        } else if let flag = try Self.ifOfType({ try container.decode(Bool.self) }) {
            self = .bool(flag)
        } else if let integer = try? container.decode(Int64.self) {
            self = .int(integer)
        } else {
            // Fractions and integers beyond Int64; a malformed number throws here.
            self = .double(try container.decode(Double.self))
        }
    }

    /// The value `decode` gives, or `nil` when the JSON value is of another type; other errors
    /// (a number out of range, say) propagate at once instead of being masked by the next guess.
    private static func ifOfType<T>(_ decode: () throws -> T) throws -> T? {
        do {
            return try decode()
        } catch DecodingError.typeMismatch {
            return nil
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
}
