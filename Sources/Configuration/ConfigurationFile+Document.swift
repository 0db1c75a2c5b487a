import Foundation
import JSONInput

extension ConfigurationFile {
    /// Parses a configuration document: UTF-8 (a byte order mark is skipped) read as JSON5 by
    /// `StrictJSONDecoder` (`.json5`), a superset of JSON that adds comments, trailing commas,
    /// unquoted keys and single-quoted strings; a key written twice in one object is refused.
    /// A syntax error names its line and column (`not valid JSON: line 3, column 12: ...`) and,
    /// when it lies inside a value, that value's path as `field`.
    static func document(_ bytes: [UInt8]) throws(ConfigurationError) -> JSONNode {
        // Checked here because the decoder's message for an empty document expects any JSON value.
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw ConfigurationError(field: "", message: "the document is empty; expected a JSON object")
        }
        do {
            return try StrictJSONDecoder(options: .init(syntax: .json5)).decode(JSONNode.self, from: bytes)
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
            _ = try decoder.decode(FoundationProbe.self, from: JSONNode.foundationJSON5(bytes))
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
        let text = FoundationJSONErrorText.words(
            for: nsError.userInfo[NSDebugDescriptionErrorKey] as? String ?? String(describing: underlying))
        let position = text.line.map { line in "line \(line)" + (text.column.map { ", column \($0)" } ?? "") + ": " }
        return "not valid JSON: " + (position ?? "") + text.message
    }

    /// A decoder coding path as a field path, e.g. `listeners[0].name`.
    private static func fieldPath(_ codingPath: [any CodingKey]) -> String {
        codingPath.reduce("") { path, key in
            // Array positions are keys named "Index N"; an object key such as "0" has an intValue too.
            if let index = key.intValue, key.stringValue == "Index \(index)" { return path + "[\(index)]" }
            return InputError.join(path, key.stringValue)
        }
    }

    /// Reads every value of a document with Foundation, kind by kind, so that a string or number
    /// Foundation parses lazily and refuses reports its coding path.
    private struct FoundationProbe: Decodable {
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            do {
                try Self.read(container)
            } catch let error as DecodingError {
                throw error
            } catch {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "malformed value", underlyingError: error))
            }
        }

        private static func read(_ container: any SingleValueDecodingContainer) throws {
            if container.decodeNil() { return }
            if try ifKind(Bool.self, container) != nil { return }
            do {
                _ = try container.decode(Int64.self)
                return
            } catch DecodingError.typeMismatch {
                // Not a number.
            } catch {
                // A fraction, or beyond Int64: Double decides, and throws for a malformed number.
                _ = try container.decode(Double.self)
                return
            }
            if try ifKind(String.self, container) != nil { return }
            if try ifKind([FoundationProbe].self, container) != nil { return }
            _ = try container.decode([String: FoundationProbe].self)
        }

        private static func ifKind<T: Decodable>(_ type: T.Type, _ container: any SingleValueDecodingContainer) throws
            -> T?
        {
            do {
                return try container.decode(type)
            } catch DecodingError.typeMismatch {
                return nil
            }
        }
    }
}
