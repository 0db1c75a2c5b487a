import Foundation
import JSONInput

/// A parsed JSON document as the configuration reader sees it.
///
/// Decoded by Foundation's `JSONDecoder` in JSON5 mode (`JSONValue.decode(_:)`), so a
/// hand-written file may carry comments and trailing commas. Numbers keep a canonical text so
/// integer fields can reject `1.5` and messages show the value; objects list their members
/// sorted by key, so a file with several wrong keys always reports the same one first.
package enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    /// A number as canonical text: the digits of an integral value that fits `Int64` (`2197` for
    /// `2197`, `2197.0` and `2.197e3`), else the `Double`'s description (`1.5`, `1e+30`).
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members sorted by key. A key written twice appears once: `JSONDecoder` keeps the first.
    case object([JSONMember])

    /// Decodes the value's kind, keeping booleans apart from numbers: `JSONDecoder` reports a
    /// value of another kind as `typeMismatch`, so each kind is tried in turn.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
            self = try Self.decodeKind(container)
        } catch let error as DecodingError {
            throw error
        } catch {
            // Foundation parses strings and numbers only when they are decoded. Its error for a
            // malformed one names the problem (and often the line and column), but would reach
            // the caller as a bare "not valid JSON" unless passed on here with the value's path.
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "malformed value", underlyingError: error))
        }
    }

    private static func decodeKind(_ container: any SingleValueDecodingContainer) throws -> JSONValue {
        if container.decodeNil() { return .null }
        if let value = try decodeIfKind(Bool.self, container) { return .bool(value) }
        do {
            return .number(String(try container.decode(Int64.self)))
        } catch DecodingError.typeMismatch {
            // Not a number.
        } catch {
            // A fraction, or beyond Int64: Double decides, and throws for a malformed number.
            let value = try container.decode(Double.self)
            return .number(Int64(exactly: value).map { String($0) } ?? value.description)
        }
        if let value = try decodeIfKind(String.self, container) { return .string(value) }
        if let value = try decodeIfKind([JSONValue].self, container) { return .array(value) }
        let members = try container.decode([String: JSONValue].self)
        return .object(members.map { JSONMember(key: $0.key, value: $0.value) }.sorted { $0.key < $1.key })
    }

    /// The value as `type`, `nil` when it is of another kind.
    private static func decodeIfKind<T: Decodable>(_ type: T.Type, _ container: any SingleValueDecodingContainer) throws
        -> T?
    {
        do {
            return try container.decode(type)
        } catch DecodingError.typeMismatch {
            return nil
        }
    }

    /// The value as written in an error message: scalars as JSON text, containers by kind.
    package var rendered: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let text): return text
        case .string(let text): return JSONValue.quoted(text)
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// `text` as a JSON string literal for messages, cut at 60 characters (`InputError.quoted`,
    /// the one quoting of the project's error messages).
    package static func quoted(_ text: String) -> String { InputError.quoted(text) }
}

/// One `"key": value` pair of a JSON object.
package struct JSONMember: Sendable, Equatable {
    package var key: String
    package var value: JSONValue

    package init(key: String, value: JSONValue) {
        self.key = key
        self.value = value
    }
}
