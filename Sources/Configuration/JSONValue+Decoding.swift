import Foundation
import JSONSupport

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
}
