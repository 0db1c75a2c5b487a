/// Finds the first place where a document breaks strict JSON (RFC 8259) or JSON5, and
/// repeated keys.
///
/// It parses nothing: Foundation builds the values (`JSONNode.parse`). It exists because
/// Foundation neither says where an error is (on Linux only some errors name a byte offset,
/// none a line; in JSON5 none at all) nor refuses what its parser tolerates: a trailing comma
/// in strict JSON (`[1,]`) and a key written twice (the first or the last wins, depending on
/// the API). One pass over the bytes, no allocation per value except each object's set of keys.
///
/// JSON5 (https://spec.json5.org) as far as configuration files use it: comments, trailing
/// commas, identifier keys (ASCII and Unicode letters, digits, `_`, `$`), single-quoted
/// strings, the extra escapes (`\'`, `\v`, `\0`, `\xHH`, line continuations), and numbers
/// with `+`, hexadecimal, leading or trailing `.`, `Infinity` and `NaN`.
struct JSONSyntaxCheck {
    /// A syntax error or repeated key: where (a byte offset) and what, inside which field.
    struct Problem: Error, Equatable {
        var offset: Int
        var message: String
        var path: [PathComponent]
        /// Found in a JSON5 number or right after one (`0x0xAA`, `2e-`): Foundation's JSON5
        /// scanner traps on such numbers, so `StrictJSONDecoder` refuses them before it.
        var inNumber = false
    }

    /// How the message of a repeated key starts.
    static let duplicateKeyPrefix = "duplicate key "
    /// How the message of a number whose exponent has no digit (`1e`, `2e-`) begins.
    static let exponentDigitPrefix = "expected a digit in the exponent"

    /// Foundation's limit; deeper documents are refused by both.
    static let maxDepth = 512

    private let bytes: [UInt8]
    private let json5: Bool
    private var i = 0
    private var path: [PathComponent] = []
    /// When recording (`valueOffsets`): the byte offset where each value starts, by rendered path.
    private var offsets: [String: Int]?

    private init(_ bytes: [UInt8], json5: Bool) {
        self.bytes = bytes
        self.json5 = json5
    }

    /// The first problem of `bytes` (UTF-8, already validated), nil when it is one JSON (or,
    /// when `json5`, JSON5) value with unique keys in every object.
    static func firstProblem(in bytes: [UInt8], json5: Bool = false) -> Problem? {
        var check = JSONSyntaxCheck(bytes, json5: json5)
        do throws(Problem) {
            try check.skipSpace()
            try check.value(depth: 1)
            try check.skipSpace()
            if check.i < bytes.count {
                throw check.problem("unexpected \(check.shown(at: check.i)) after the JSON value")
            }
            return nil
        } catch {
            return error
        }
    }

    /// The byte offset where each value of `bytes` starts, by its field path as `InputError`
    /// renders it (`""` for the document, `listeners[0].port`), as far as the document is well
    /// formed (a value after the first problem is not listed).
    static func valueOffsets(in bytes: [UInt8], json5: Bool = false) -> [String: Int] {
        var check = JSONSyntaxCheck(bytes, json5: json5)
        check.offsets = [:]
        do throws(Problem) {
            try check.skipSpace()
            try check.value(depth: 1)
        } catch {}
        return check.offsets ?? [:]
    }

    // MARK: Grammar

    private mutating func value(depth: Int) throws(Problem) {
        guard i < bytes.count else { throw problem("unexpected end of the document; expected a value") }
        if offsets != nil { offsets![PathComponent.render(path)] = i }
        switch bytes[i] {
        case UInt8(ascii: "{"): try object(depth: depth)
        case UInt8(ascii: "["): try array(depth: depth)
        case UInt8(ascii: "\""): _ = try string(collect: false)
        case UInt8(ascii: "'") where json5: _ = try string(collect: false)
        case UInt8(ascii: "+") where json5, UInt8(ascii: ".") where json5, UInt8(ascii: "I") where json5,
            UInt8(ascii: "N") where json5:
            try checkedNumber5()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try json5 ? checkedNumber5() : number()
        default: try literal()
        }
    }

    private mutating func object(depth: Int) throws(Problem) {
        guard depth <= Self.maxDepth else { throw problem("nested too deeply (more than \(Self.maxDepth) levels)") }
        i += 1  // {
        try skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
            i += 1
            return
        }
        var keys: Set<String> = []
        while true {
            let keyOffset = i
            let key: String
            if i < bytes.count, bytes[i] == UInt8(ascii: "\"") || (json5 && bytes[i] == UInt8(ascii: "'")) {
                key = try string(collect: true) ?? ""
            } else if json5, let identifier = identifier() {
                key = identifier
            } else {
                let wanted = json5 ? "a key" : "a key in double quotes"
                throw problem(
                    i < bytes.count
                        ? "expected \(wanted), got \(shown(at: i))"
                        : "unexpected end of the document; expected \(wanted)")
            }
            guard keys.insert(key).inserted else {
                i = keyOffset
                throw problem(Self.duplicateKeyPrefix + InputError.quoted(key))
            }
            try skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
                throw problem("expected ':' after the key \(InputError.quoted(key))\(got)")
            }
            i += 1
            try skipSpace()
            path.append(.key(key))
            try value(depth: depth + 1)
            path.removeLast()
            try skipSpace()
            guard i < bytes.count else { throw problem("unexpected end of the document; expected ',' or '}'") }
            if bytes[i] == UInt8(ascii: "}") {
                i += 1
                return
            }
            guard bytes[i] == UInt8(ascii: ",") else {
                throw problem("expected ',' or '}' after an object member, got \(shown(at: i))")
            }
            let comma = i
            i += 1
            try skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
                if json5 {
                    i += 1
                    return
                }
                i = comma
                throw problem("trailing comma before '}'")
            }
        }
    }

    private mutating func array(depth: Int) throws(Problem) {
        guard depth <= Self.maxDepth else { throw problem("nested too deeply (more than \(Self.maxDepth) levels)") }
        i += 1  // [
        try skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
            i += 1
            return
        }
        var index = 0
        while true {
            path.append(.index(index))
            try value(depth: depth + 1)
            path.removeLast()
            try skipSpace()
            guard i < bytes.count else { throw problem("unexpected end of the document; expected ',' or ']'") }
            if bytes[i] == UInt8(ascii: "]") {
                i += 1
                return
            }
            guard bytes[i] == UInt8(ascii: ",") else {
                throw problem("expected ',' or ']' after an array element, got \(shown(at: i))")
            }
            let comma = i
            i += 1
            try skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
                if json5 {
                    i += 1
                    return
                }
                i = comma
                throw problem("trailing comma before ']'")
            }
            index += 1
        }
    }

    /// Checks the string at `i` (its opening quote) and moves past it; returns its text when
    /// `collect` (for keys, compared after escapes are resolved: `"\u0061"` is `"a"`).
    private mutating func string(collect: Bool) throws(Problem) -> String? {
        let start = i
        let quote = bytes[i]
        i += 1
        var scalars = String.UnicodeScalarView()
        var plainFrom = i
        func flushPlain(_ end: Int) {
            if collect, plainFrom < end {
                scalars.append(contentsOf: String(decoding: bytes[plainFrom..<end], as: UTF8.self).unicodeScalars)
            }
        }
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case quote:
                flushPlain(i)
                i += 1
                return collect ? String(scalars) : nil
            case UInt8(ascii: "\\"):
                flushPlain(i)
                let scalar = try escape()
                if collect, let scalar { scalars.append(scalar) }
                plainFrom = i
            case 0x0A where json5, 0x0D where json5:
                throw problem(
                    "unescaped \(controlName(byte)) in a string (write it as \\n, or end the line with \\ to continue)")
            case 0..<0x20 where !json5:
                throw problem(
                    "unescaped control character \(controlName(byte)) in a string (write it as an escape, e.g. \\n)")
            default:
                i += 1
            }
        }
        i = start
        throw problem("unterminated string: no closing quote before the end of the document")
    }

    /// The escape at `i` (its backslash), moving past it; nil for a JSON5 line continuation.
    private mutating func escape() throws(Problem) -> Unicode.Scalar? {
        let start = i
        guard i + 1 < bytes.count else { throw problem("unterminated string: the document ends inside an escape") }
        let letter = bytes[i + 1]
        i += 2
        switch letter {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try hex4(escapeAt: start)
            if (0xDC00...0xDFFF).contains(high) {
                i = start
                throw problem("invalid escape: \\u\(hexText(high)) is a low surrogate without a high one before it")
            }
            guard (0xD800...0xDBFF).contains(high) else { return Unicode.Scalar(high)! }
            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                i = start
                throw problem("invalid escape: \\u\(hexText(high)) is a high surrogate without a low one after it")
            }
            let lowStart = i
            i += 2
            let low = try hex4(escapeAt: lowStart)
            guard (0xDC00...0xDFFF).contains(low) else {
                i = start
                throw problem("invalid escape: \\u\(hexText(high)) is a high surrogate without a low one after it")
            }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))!
        default:
            if json5 { return try escape5(letter, start: start) }
            i = start
            throw problem("invalid escape \(shownEscape(letter)) (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
        }
    }

    /// JSON5's further escapes; `i` is past the letter.
    private mutating func escape5(_ letter: UInt8, start: Int) throws(Problem) -> Unicode.Scalar? {
        switch letter {
        case UInt8(ascii: "'"): return "'"
        case UInt8(ascii: "v"): return "\u{0B}"
        case UInt8(ascii: "0"):
            guard i >= bytes.count || !isDigit(bytes[i]) else {
                i = start
                throw problem("invalid escape: \\0 cannot be followed by a digit")
            }
            return "\u{0}"
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            i = start
            throw problem("invalid escape \(shownEscape(letter)) (digits cannot be escaped)")
        case UInt8(ascii: "x"):
            guard i + 1 < bytes.count, let high = Self.hexValue(bytes[i]), let low = Self.hexValue(bytes[i + 1]) else {
                i = start
                throw problem("invalid escape: \\x takes 2 hexadecimal digits")
            }
            i += 2
            return Unicode.Scalar(UInt8(high << 4 | low))
        case 0x0A:
            return nil
        case 0x0D:
            if i < bytes.count, bytes[i] == 0x0A { i += 1 }
            return nil
        default:
            // Any other character escapes to itself (multibyte ones included).
            i -= 1
            let scalar = self.scalar(at: i)
            i += scalar.map { String($0).utf8.count } ?? 1
            return scalar == "\u{2028}" || scalar == "\u{2029}" ? nil : scalar
        }
    }

    /// Four hexadecimal digits at `i`.
    private mutating func hex4(escapeAt start: Int) throws(Problem) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard i < bytes.count, let digit = Self.hexValue(bytes[i]) else {
                i = start
                throw problem("invalid escape: \\u takes 4 hexadecimal digits")
            }
            value = value << 4 | digit
            i += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() throws(Problem) {
        if bytes[i] == UInt8(ascii: "-") {
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { throw problem("expected a digit after '-'\(got)") }
        }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < bytes.count, isDigit(bytes[i]) { throw problem("a number cannot have a leading zero") }
        } else {
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else {
                throw problem("expected a digit after the decimal point\(got)")
            }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw problem(Self.exponentDigitPrefix + got) }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
    }

    /// `true`, `false` or `null`; anything else where a value belongs is an error.
    private mutating func literal() throws(Problem) {
        for word in ["true", "false", "null"] {
            let utf8 = Array(word.utf8)
            if bytes.count - i >= utf8.count, bytes[i..<(i + utf8.count)].elementsEqual(utf8) {
                i += utf8.count
                return
            }
        }
        if bytes[i] == UInt8(ascii: "/"), i + 1 < bytes.count,
            bytes[i + 1] == UInt8(ascii: "/") || bytes[i + 1] == UInt8(ascii: "*")
        {
            throw problem("comments are not allowed in JSON")
        }
        var end = i
        while end < bytes.count, isWordByte(bytes[end]) { end += 1 }
        if end > i {
            let word = String(decoding: bytes[i..<end], as: UTF8.self)
            throw problem(
                "expected a value, got '\(word)' (the literals are true, false and null; strings take "
                    + (json5 ? "quotes)" : "double quotes)"))
        }
        throw problem("expected a value, got \(shown(at: i))")
    }

    // MARK: Helpers

    private mutating func skipSpace() throws(Problem) {
        while i < bytes.count {
            let byte = bytes[i]
            if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                i += 1
            } else if !json5 {
                return
            } else if byte == 0x0B || byte == 0x0C {
                i += 1
            } else if byte == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "/") {
                while i < bytes.count, bytes[i] != 0x0A { i += 1 }
            } else if byte == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "*") {
                let start = i
                i += 2
                while i + 1 < bytes.count, !(bytes[i] == UInt8(ascii: "*") && bytes[i + 1] == UInt8(ascii: "/")) {
                    i += 1
                }
                guard i + 1 < bytes.count else {
                    i = start
                    throw problem("unterminated comment: no */ before the end of the document")
                }
                i += 2
            } else if byte >= 0x80, let scalar = scalar(at: i),
                scalar.properties.generalCategory == .spaceSeparator
                    || ["\u{FEFF}", "\u{2028}", "\u{2029}"].contains(scalar)
            {
                i += String(scalar).utf8.count
            } else {
                return
            }
        }
    }

    /// The scalar whose encoding starts at `offset`.
    private func scalar(at offset: Int) -> Unicode.Scalar? {
        var end = offset + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return String(decoding: bytes[offset..<end], as: UTF8.self).unicodeScalars.first
    }

    /// A JSON5 identifier key at `i` (letters, digits, `_`, `$`, not starting with a digit),
    /// moving past it; nil when none starts here.
    private mutating func identifier() -> String? {
        let start = i
        while i < bytes.count {
            let byte = bytes[i]
            if byte < 0x80 {
                guard isWordByte(byte), !(i == start && isDigit(byte)) else { break }
                i += 1
            } else {
                guard let scalar = scalar(at: i), scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                else { break }
                i += String(scalar).utf8.count
            }
        }
        return i > start ? String(decoding: bytes[start..<i], as: UTF8.self) : nil
    }

    /// `number5`, then no letter, digit, `.`, `+` or `-` right after it (Foundation's scanner
    /// reads those as part of the number); a problem in either says `inNumber`.
    private mutating func checkedNumber5() throws(Problem) {
        do throws(Problem) {
            try number5()
            if i < bytes.count, Self.continuesNumber(bytes[i]) {
                throw problem("unexpected character after the number\(got)")
            }
        } catch {
            var found = error
            found.inNumber = true
            throw found
        }
    }

    private static func continuesNumber(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"):
            return true
        default: return false
        }
    }

    /// A JSON5 number: `[+-]` then `Infinity`, `NaN`, `0x` hexadecimal digits, or decimal
    /// digits with an optional `.` anywhere and an exponent.
    private mutating func number5() throws(Problem) {
        if bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        for word in ["Infinity", "NaN"] {
            let utf8 = Array(word.utf8)
            if bytes.count - i >= utf8.count, bytes[i..<(i + utf8.count)].elementsEqual(utf8) {
                i += utf8.count
                return
            }
        }
        guard i < bytes.count else { throw problem("unexpected end of the document; expected a number") }
        if bytes[i] == UInt8(ascii: "0"), i + 1 < bytes.count, bytes[i + 1] | 0x20 == UInt8(ascii: "x") {
            i += 2
            guard i < bytes.count, Self.hexValue(bytes[i]) != nil else {
                throw problem("expected a hexadecimal digit after 0x\(got)")
            }
            while i < bytes.count, Self.hexValue(bytes[i]) != nil { i += 1 }
            return
        }
        guard isDigit(bytes[i]) || bytes[i] == UInt8(ascii: ".") else { return try literal() }
        var digits = 0
        if bytes[i] == UInt8(ascii: "0"), i + 1 < bytes.count, isDigit(bytes[i + 1]) {
            i += 1
            throw problem("a number cannot have a leading zero")
        }
        while i < bytes.count, isDigit(bytes[i]) {
            i += 1
            digits += 1
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < bytes.count, isDigit(bytes[i]) {
                i += 1
                digits += 1
            }
        }
        guard digits > 0 else { throw problem("expected a digit in the number\(got)") }
        if i < bytes.count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw problem(Self.exponentDigitPrefix + got) }
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
    }

    private func problem(_ message: String) -> Problem { Problem(offset: i, message: message, path: path) }

    /// `, got 'x'` for the byte at `i`, or `, got the end of the document`.
    private var got: String { i < bytes.count ? ", got \(shown(at: i))" : ", got the end of the document" }

    /// The character starting at `offset` for a message: `'x'`, `'é'`, `a line break`.
    private func shown(at offset: Int) -> String {
        let byte = bytes[offset]
        if byte < 0x20 { return controlName(byte) }
        var end = offset + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        let text = String(decoding: bytes[offset..<end], as: UTF8.self)
        return text == "'" ? "\"'\"" : "'\(text)'"
    }

    private func controlName(_ byte: UInt8) -> String {
        switch byte {
        case 0x0A: return "a line break"
        case 0x0D: return "a carriage return"
        case 0x09: return "a tab"
        default: return "U+" + hexText(UInt32(byte))
        }
    }

    private func shownEscape(_ letter: UInt8) -> String {
        letter < 0x20 || letter >= 0x80
            ? "'\\' followed by \(letter < 0x20 ? controlName(letter) : "a non-ASCII character")"
            : "'\\\(Character(Unicode.Scalar(letter)))'"
    }

    private func hexText(_ value: UInt32) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

/// Byte offsets of a UTF-8 document as 1-based lines and columns.
enum TextPosition {
    /// The line (lines end at `\n`, so `\r\n` counts once) and column (Unicode scalars from the
    /// start of the line, a tab counting one) of the byte at `offset`; `offset == bytes.count`
    /// is the position just after the last character.
    static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }

    /// The offset of the first byte that is not part of valid UTF-8, nil when all are.
    static func firstInvalidUTF8(in bytes: [UInt8]) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}
