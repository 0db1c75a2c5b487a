/// A parsed JSON document as the configuration reader sees it.
///
/// Numbers keep their literal text so integer fields can reject `1.5` and report exactly what
/// was written; objects keep their members in file order (duplicates included) so the reader
/// can report a duplicate key by its field path.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number exactly as written, e.g. `2197`, `-1`, `2.5e3`.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

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
