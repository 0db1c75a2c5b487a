/// Input that cannot be used: malformed JSON, an unknown or duplicate key, a value of the wrong
/// type or out of range. The one error type `StrictJSONDecoder` throws.
///
/// `description` renders `path: message`, e.g.
/// `listeners[0].port: expected an integer from 1 to 65535, got "x"`; a syntax error adds its
/// position, e.g. `line 3, column 12: expected ',' or '}' after an object member`, or
/// `faults[0] (line 2, column 9): duplicate key "id"`.
public struct InputError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The field path of the offending value: object keys joined by `.`, array positions as
    /// `[N]` (`faults[2].action.type`); empty for the document as a whole.
    public var path: String
    /// What is wrong and, when there is a rule, what was expected and what came.
    public var message: String
    /// 1-based line of a syntax error (lines end at `\n`; `\r\n` counts once); nil otherwise.
    public var line: Int?
    /// 1-based column of a syntax error, in Unicode scalars from the start of its line; nil otherwise.
    public var column: Int?

    /// An error about the value at `path` (a field path, or empty).
    public init(path: String, message: String, line: Int? = nil, column: Int? = nil) {
        self.path = path
        self.message = message
        self.line = line
        self.column = column
    }

    /// An error about the value at `codingPath`, as a `Decoder` gives it inside `init(from:)`;
    /// for a model's own checks, e.g. `throw InputError(at: decoder.codingPath, "must be even, got 3")`.
    public init(at codingPath: [any CodingKey], _ message: String) {
        self.init(path: Self.path(codingPath), message: message)
    }

    /// `path (line L, column C): message`, leaving out the parts that are absent.
    public var description: String {
        var location = path
        if let line, let column {
            location +=
                (location.isEmpty ? "" : " ")
                + (path.isEmpty ? "line \(line), column \(column)" : "(line \(line), column \(column))")
        }
        return location.isEmpty ? message : "\(location): \(message)"
    }

    /// The same error with `prefix` put before its path, e.g. `faults[1]` for an error read
    /// from a nested document.
    public func prefixed(_ prefix: String) -> InputError {
        InputError(path: Self.join(prefix, path), message: message, line: line, column: column)
    }

    /// `parent.child`, `parent[1]` when `child` starts with `[`, or the one that is not empty.
    public static func join(_ parent: String, _ child: String) -> String {
        if parent.isEmpty { return child }
        if child.isEmpty { return parent }
        return child.hasPrefix("[") ? parent + child : "\(parent).\(child)"
    }

    /// A coding path as a field path: object keys by their `stringValue` (the wire names),
    /// array positions as `[N]`. A position is a key whose `stringValue` is `Index N` (as
    /// Foundation's and `StrictJSONDecoder`'s are), so an object key such as `"0"` stays a key.
    public static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.reduce("") { path, key in
            if let index = key.intValue, key.stringValue == "Index \(index)" { return path + "[\(index)]" }
            return join(path, key.stringValue)
        }
    }

    /// `text` as a JSON string literal for messages, cut after 60 characters (`...` added) so a
    /// long value stays readable; control characters escaped.
    public static func quoted(_ text: String) -> String {
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
