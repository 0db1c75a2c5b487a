import Foundation

/// A parsed JSON document as the configuration reader sees it.
///
/// Decoded by Foundation's `JSONDecoder` in JSON5 mode (`JSONValue.decode(_:)`), so a
/// hand-written file may carry comments and trailing commas. Numbers keep a canonical text so
/// integer fields can reject `1.5` and messages show the value; objects list their members
/// sorted by key, so a file with several wrong keys always reports the same one first.
enum JSONValue: Sendable, Equatable, Decodable {
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
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
            self = try Self.decodeKind(container)
        } catch let error as DecodingError {
            throw error
        } catch {
            // Foundation parses strings and numbers only when they are decoded. Its error for a
            // malformed one names the problem (and often the line and column), but would reach
            // the caller as a bare "not valid JSON" unless passed on here with the value's path.
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
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
    private static func decodeIfKind<T: Decodable>(_ type: T.Type, _ container: any SingleValueDecodingContainer) throws -> T? {
        do {
            return try container.decode(type)
        } catch DecodingError.typeMismatch {
            return nil
        }
    }

    /// The value as written in an error message: scalars as JSON text, containers by kind.
    var rendered: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let text): return text
        case .string(let text): return JSONValue.quoted(text)
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// `text` as a JSON string literal, cut at 60 characters so a long value stays readable.
    static func quoted(_ text: String) -> String {
        let shown = text.count > 60 ? String(text.prefix(60)) + "..." : text
        var out = "\""
        for scalar in shown.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// One `"key": value` pair of a JSON object.
struct JSONMember: Sendable, Equatable {
    var key: String
    var value: JSONValue
}

extension JSONValue {
    /// Decodes a configuration document: UTF-8 (a byte order mark is skipped) read as JSON5, a
    /// superset of JSON that adds comments, trailing commas, unquoted keys and single-quoted
    /// strings. Syntax errors carry Foundation's description; when the error is in one string or
    /// number, `field` is that value's path.
    static func decode(_ bytes: [UInt8]) throws(ConfigurationError) -> JSONValue {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw ConfigurationError(field: "", message: "the document is not valid UTF-8")
        }
        // Checked here because Foundation's message for an empty file is its generic one.
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw ConfigurationError(field: "", message: "the document is empty; expected a JSON object")
        }
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        do {
            return try decoder.decode(JSONValue.self, from: Data(bytes))
        } catch let DecodingError.dataCorrupted(context) {
            throw ConfigurationError(field: fieldPath(context.codingPath), message: syntaxMessage(context))
        } catch {
            throw ConfigurationError(field: "", message: "not valid JSON: \(error)")
        }
    }

    /// "not valid JSON", with Foundation's underlying description when it gives one. On Linux a
    /// structural error comes without one, and without a position ("The given data was not valid
    /// JSON." only), so a hint stands in for it.
    private static func syntaxMessage(_ context: DecodingError.Context) -> String {
        guard let underlying = context.underlyingError else {
            return "not valid JSON (Foundation reports no position here: look for a missing comma, colon, quote "
                + "or closing bracket, or an unclosed comment)"
        }
        let nsError = underlying as NSError
        return "not valid JSON: " + (nsError.userInfo[NSDebugDescriptionErrorKey] as? String ?? String(describing: underlying))
    }

    /// A decoder coding path as a field path, e.g. `listeners[0].name`.
    private static func fieldPath(_ codingPath: [any CodingKey]) -> String {
        codingPath.reduce("") { path, key in
            // Array positions are keys named "Index N"; an object key such as "0" has an intValue too.
            if let index = key.intValue, key.stringValue == "Index \(index)" { return path + "[\(index)]" }
            return JSONObjectReader.join(path, key.stringValue)
        }
    }
}
