import JSONInput

/// A configuration that cannot be used: malformed JSON, a wrong key or value, or values that
/// contradict each other. The description names where and what, for example
/// `listeners[1].port: expected an integer from 0 to 65535, got "abc"`.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The configuration file, when the configuration was loaded from one.
    public var file: String?
    /// The path of the offending field, e.g. `listeners[1].port` or `http2.streamProfile`;
    /// empty for the document as a whole and for syntax errors outside a single string or number.
    public var field: String
    /// What is wrong, and what was expected.
    public var message: String
    /// Where in the file the offending value starts (1-based line and column), for an error about
    /// a value's type or range found after parsing; nil when not known, and for syntax errors,
    /// whose `message` says where.
    public var position: (line: Int, column: Int)?

    /// Creates an error about `field` (a field path, or empty).
    public init(field: String, message: String, file: String? = nil) {
        self.file = file
        self.field = field
        self.message = message
    }

    /// `file: line L, column C: field: message`, leaving out the parts that are absent.
    public var description: String {
        let at = position.map { "line \($0.line), column \($0.column)" }
        return [file, at, field.isEmpty ? nil : field, message].compactMap { $0 }.joined(separator: ": ")
    }

    public static func == (a: ConfigurationError, b: ConfigurationError) -> Bool {
        a.file == b.file && a.field == b.field && a.message == b.message && a.position?.line == b.position?.line
            && a.position?.column == b.position?.column
    }
}

extension ConfigurationError: InputErrorConvertible {
    /// The error as `StrictJSONDecoder` passes it on when a section's reading throws it.
    public var inputError: InputError { InputError(path: field, message: message) }

    /// A refusal of the decoder: its field path and message.
    init(_ error: InputError) {
        self.init(field: error.path, message: error.message)
    }

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
