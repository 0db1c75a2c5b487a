/// Parses JSON with two relaxations for hand-written configuration files: `//` and `/* */`
/// comments, and a trailing comma before `]` or `}`. Everything else is strict RFC 8259.
///
/// Written here rather than using `JSONSerialization` because this toolchain's Foundation has
/// no `.json5Allowed`, and because Linux `JSONSerialization` returns booleans and numbers as
/// the same `NSNumber`, which would let `"plaintext": 1` pass as `true`.
struct CommentedJSONParser {
    /// Nesting deeper than this is refused so a hostile document cannot exhaust the stack.
    static let maxDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    /// Parses a whole document; the error's message starts with `line L, column C`.
    static func parse(_ bytes: [UInt8]) throws(ConfigurationError) -> JSONValue {
        var body = bytes
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body.removeFirst(3) }  // UTF-8 byte order mark
        guard String(validating: body, as: UTF8.self) != nil else {
            throw ConfigurationError(field: "", message: "the document is not valid UTF-8")
        }
        var parser = CommentedJSONParser(bytes: body)
        try parser.skipBlanks()
        guard parser.index < parser.bytes.count else {
            throw ConfigurationError(field: "", message: "the document is empty; expected a JSON object")
        }
        let value = try parser.parseValue()
        try parser.skipBlanks()
        guard parser.index == parser.bytes.count else {
            throw parser.failure("unexpected text after the end of the document")
        }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    // MARK: Values

    private mutating func parseValue() throws(ConfigurationError) -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of the document; expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        default: throw failure("unexpected \(describeCurrent()); expected a value")
        }
    }

    private mutating func parseObject() throws(ConfigurationError) -> JSONValue {
        try enterContainer()
        index += 1  // {
        var members: [JSONMember] = []
        while true {
            try skipBlanks()
            guard index < bytes.count else { throw failure("unexpected end of the document; expected '}'") }
            if bytes[index] == UInt8(ascii: "}") { break }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw failure("unexpected \(describeCurrent()); expected a key in double quotes or '}'")
            }
            let key = try parseString()
            try skipBlanks()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw failure("expected ':' after the key \(JSONValue.quoted(key))")
            }
            index += 1
            try skipBlanks()
            members.append(JSONMember(key: key, value: try parseValue()))
            try skipBlanks()
            guard index < bytes.count else { throw failure("unexpected end of the document; expected ',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "}") else {
                throw failure("unexpected \(describeCurrent()); expected ',' or '}' after the value of \(JSONValue.quoted(key))")
            }
        }
        index += 1  // }
        depth -= 1
        return .object(members)
    }

    private mutating func parseArray() throws(ConfigurationError) -> JSONValue {
        try enterContainer()
        index += 1  // [
        var elements: [JSONValue] = []
        while true {
            try skipBlanks()
            guard index < bytes.count else { throw failure("unexpected end of the document; expected ']'") }
            if bytes[index] == UInt8(ascii: "]") { break }
            elements.append(try parseValue())
            try skipBlanks()
            guard index < bytes.count else { throw failure("unexpected end of the document; expected ',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "]") else {
                throw failure("unexpected \(describeCurrent()); expected ',' or ']'")
            }
        }
        index += 1  // ]
        depth -= 1
        return .array(elements)
    }

    private mutating func enterContainer() throws(ConfigurationError) {
        depth += 1
        if depth > Self.maxDepth { throw failure("nesting deeper than \(Self.maxDepth) levels") }
    }

    private mutating func parseString() throws(ConfigurationError) -> String {
        let start = index
        index += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var chunkStart = index
        func flush(_ end: Int) {
            // The document was validated as UTF-8, so any byte range between ASCII delimiters decodes cleanly.
            scalars.append(contentsOf: String(decoding: bytes[chunkStart..<end], as: UTF8.self).unicodeScalars)
        }
        while true {
            guard index < bytes.count else {
                index = start
                throw failure("unterminated string")
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { flush(index); index += 1; break }
            if byte < 0x20 { throw failure("control character in a string (write \\n, \\t or \\u00XX)") }
            if byte != UInt8(ascii: "\\") { index += 1; continue }
            flush(index)
            index += 1
            guard index < bytes.count else { throw failure("unterminated string") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"): scalars.append(try parseUnicodeEscape())
            default:
                index -= 2
                throw failure("invalid escape sequence in a string")
            }
            chunkStart = index
        }
        return String(scalars)
    }

    /// After `\u`: four hex digits, or a surrogate pair written as two escapes.
    private mutating func parseUnicodeEscape() throws(ConfigurationError) -> Unicode.Scalar {
        let high = try parseHex4()
        if (0xD800...0xDBFF).contains(high) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("unpaired UTF-16 surrogate in a \\u escape")
            }
            index += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired UTF-16 surrogate in a \\u escape") }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
        }
        guard let scalar = Unicode.Scalar(high) else { throw failure("unpaired UTF-16 surrogate in a \\u escape") }
        return scalar
    }

    private mutating func parseHex4() throws(ConfigurationError) -> UInt32 {
        guard index + 4 <= bytes.count,
              let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
              bytes[index..<index + 4].allSatisfy(\.isHexDigit) else {
            throw failure("expected four hexadecimal digits after \\u")
        }
        index += 4
        return value
    }

    /// RFC 8259 number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func parseNumber() throws(ConfigurationError) -> String {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, bytes[index].isDigit else { throw failure("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, bytes[index].isDigit { throw failure("numbers must not have leading zeros") }
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, bytes[index].isDigit else { throw failure("expected a digit after '.'") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, bytes[index].isDigit else { throw failure("expected a digit in the exponent") }
            skipDigits()
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func skipDigits() {
        while index < bytes.count, bytes[index].isDigit { index += 1 }
    }

    private mutating func expectWord(_ word: String) throws(ConfigurationError) {
        let utf8 = Array(word.utf8)
        guard bytes.count - index >= utf8.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
            throw failure("unexpected \(describeCurrent()); expected a value (strings need double quotes)")
        }
        index += utf8.count
    }

    // MARK: Blanks and comments

    private mutating func skipBlanks() throws(ConfigurationError) {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                let start = index
                index += 2
                while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) {
                    index += 1
                }
                guard index + 1 < bytes.count else {
                    index = start
                    throw failure("unterminated /* comment")
                }
                index += 2
            default:
                return
            }
        }
    }

    // MARK: Errors

    /// What sits at the current position, for "unexpected ..." messages.
    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of the document" }
        let byte = bytes[index]
        if byte == UInt8(ascii: "'") { return "single quote (strings need double quotes)" }
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "character"
    }

    /// An error at the current position; line and column count from 1, columns in characters.
    private func failure(_ message: String) -> ConfigurationError {
        var line = 1
        var column = 1
        for byte in bytes[..<min(index, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {  // count characters, not UTF-8 continuation bytes
                column += 1
            }
        }
        return ConfigurationError(field: "", message: "line \(line), column \(column): \(message)")
    }
}

private extension UInt8 {
    var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    var isHexDigit: Bool {
        isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f")) || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
