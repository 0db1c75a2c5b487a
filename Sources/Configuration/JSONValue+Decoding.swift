import Foundation
import JSONInput
import JSONSupport

extension JSONValue {
    /// Decodes a configuration document: UTF-8 (a byte order mark is skipped) read as JSON5 by
    /// `StrictJSONDecoder` (`.json5`), a superset of JSON that adds comments, trailing commas,
    /// unquoted keys and single-quoted strings; a key written twice in one object is refused.
    /// A syntax error names its line and column (`not valid JSON: line 3, column 12: ...`) and,
    /// when it lies inside a value, that value's path as `field`.
    static func decode(_ bytes: [UInt8]) throws(ConfigurationError) -> JSONValue {
        // Checked here because the decoder's message for an empty document expects any JSON value.
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw ConfigurationError(field: "", message: "the document is empty; expected a JSON object")
        }
        do {
            return JSONValue(try StrictJSONDecoder(options: .init(syntax: .json5)).decode(JSONNode.self, from: bytes))
        } catch  where error.line == nil && error.message.hasPrefix("not valid JSON") {
            // Foundation refused what the syntax check could not locate (an escape or a number
            // JSON5 allows but Foundation does not): its own lazy reading names the value's field.
            try foundationError(bytes)
            throw ConfigurationError(syntax: error)
        } catch {
            throw ConfigurationError(syntax: error)
        }
    }

    /// Foundation's JSON5 refusal of `bytes`, naming the field of the string or number it
    /// could not read; returns when Foundation reads the document.
    private static func foundationError(_ bytes: [UInt8]) throws(ConfigurationError) {
        let decoder = JSONDecoder()
        decoder.allowsJSON5 = true
        do {
            _ = try decoder.decode(JSONValue.self, from: Data(bytes))
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
        return "not valid JSON: "
            + (nsError.userInfo[NSDebugDescriptionErrorKey] as? String ?? String(describing: underlying))
    }

    /// A decoder coding path as a field path, e.g. `listeners[0].name`.
    private static func fieldPath(_ codingPath: [any CodingKey]) -> String {
        codingPath.reduce("") { path, key in
            // Array positions are keys named "Index N"; an object key such as "0" has an intValue too.
            if let index = key.intValue, key.stringValue == "Index \(index)" { return path + "[\(index)]" }
            return JSONObjectReader.join(path, key.stringValue)
        }
    }

    /// A parsed value as the configuration reader holds it: numbers as canonical text (the
    /// digits of an integral value that fits `Int64`, else the `Double`'s description), object
    /// members sorted by key.
    init(_ node: JSONNode) {
        switch node {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .number(String(value))
        case .uint(let value): self = .number(Double(value).description)
        case .double(let value): self = .number(Int64(exactly: value).map { String($0) } ?? value.description)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(elements.map(JSONValue.init))
        case .object(let members):
            self = .object(
                members.map { JSONMember(key: $0.key, value: JSONValue($0.value)) }.sorted { $0.key < $1.key })
        }
    }
}

extension ConfigurationError {
    /// A document the decoder cannot read, at the path of the value it was in (if any):
    /// `not valid JSON: line 3, column 12: expected ',' or '}' after an object member`.
    init(syntax error: InputError) {
        let position = error.line.map { line in "line \(line), column \(error.column ?? 0): " } ?? ""
        let detail =
            error.message.hasPrefix("not valid JSON")
            ? String(error.message.dropFirst("not valid JSON".count).drop { $0 == ":" || $0 == " " })
            : error.message
        if error.message.hasPrefix("not valid UTF-8") {
            // `not valid UTF-8 (byte 0xFF)`: the byte and where it is.
            let byte = detail.dropFirst("not valid UTF-8 (".count).dropLast()
            self.init(
                field: error.path,
                message: "the document is not valid UTF-8 (\(byte) at \(position.dropLast(2)))")
        } else {
            self.init(field: error.path, message: "not valid JSON: \(position)\(detail)")
        }
    }
}
