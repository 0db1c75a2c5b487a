/// A single-pass, allocation-free (unless `aps` holds unknown keys) scanner that validates a push
/// body as strict RFC 8259 JSON and gathers `PayloadFacts` on the way: the fast path of
/// `PayloadInspector`.
///
/// It only ever answers "a JSON object with these facts" or "not sure". Everything unusual makes
/// it decline, and then `JSONSerialization` decides: syntax errors (so the parser's message is
/// the one recorded), a top level that is not `{` (arrays, a BOM), exponents and numbers longer
/// than 20 characters (`1e400` is an error for Foundation), `\u` escapes of surrogates, invalid
/// UTF-8, escapes in object keys of the top level or of `aps`, and nesting deeper than 64
/// (Foundation's limit is 512). Corelibs Foundation is laxer than RFC 8259 (it accepts trailing
/// commas), so declining on those keeps both paths in agreement.
struct PayloadScanner {
    /// The facts of `body` when it is certainly a JSON object, else `nil`.
    static func scan(_ body: [UInt8]) -> PayloadFacts? {
        body.withUnsafeBufferPointer { buffer in
            var scanner = PayloadScanner(bytes: buffer)
            return scanner.scanDocument() ? scanner.facts : nil
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var facts = PayloadFacts()

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private static let maxDepth = 64
    private static let maxNumberLength = 20

    // MARK: Document structure

    private mutating func scanDocument() -> Bool {
        skipWhitespace()
        guard peek() == ASCII.openBrace else { return false }
        index += 1
        guard scanTopLevelMembers() else { return false }
        skipWhitespace()
        return index == bytes.count
    }

    /// The top-level object's members after `{`; only `aps` is looked into.
    private mutating func scanTopLevelMembers() -> Bool {
        skipWhitespace()
        if peek() == ASCII.closeBrace { index += 1; return true }
        while true {
            guard let key = scanKey(inAps: false) else { return false }
            if key.name == .aps {
                // A repeated `aps` replaces the earlier one, as in JSONSerialization.
                facts = PayloadFacts()
                if peek() == ASCII.openBrace {
                    index += 1
                    facts.aps = .dictionary
                    guard scanApsMembers() else { return false }
                } else {
                    guard let kind = scanValue(depth: 1) else { return false }
                    facts.aps = kind
                }
            } else {
                guard scanValue(depth: 1) != nil else { return false }
            }
            guard let more = scanMemberSeparator() else { return false }
            if !more { return true }
        }
    }

    /// The `aps` object's members after `{`.
    private mutating func scanApsMembers() -> Bool {
        skipWhitespace()
        if peek() == ASCII.closeBrace { index += 1; return true }
        while true {
            let keyStart = index + 1
            guard let key = scanKey(inAps: true) else { return false }
            if key.name != .contentAvailable { facts.apsHasOtherKeys = true }
            switch key.name {
            case .alert:
                guard let kind = scanValue(depth: 2) else { return false }
                facts.alert = kind
            case .badge:
                guard let kind = scanValue(depth: 2) else { return false }
                facts.badge = kind
            case .sound:
                guard let kind = scanValue(depth: 2) else { return false }
                facts.sound = kind
            case .contentAvailable:
                let valueStart = index
                guard let kind = scanValue(depth: 2) else { return false }
                facts.contentAvailable = kind
                facts.contentAvailableIsOne = kind == .number && isNumberOne(from: valueStart, to: index)
            case .other:
                // The key has no escapes (scanKey declined those), so its bytes are its text.
                let text = UnsafeBufferPointer(rebasing: bytes[keyStart..<keyStart + key.length])
                facts.unknownApsKeys.append(String(decoding: text, as: UTF8.self))
                guard scanValue(depth: 2) != nil else { return false }
            case .known, .aps, .irrelevant:
                guard scanValue(depth: 2) != nil else { return false }
            }
            guard let more = scanMemberSeparator() else { return false }
            if !more { return true }
        }
    }

    /// After a member's value: `true` for `,` (another member follows), `false` for `}`,
    /// `nil` on anything else or a trailing comma.
    private mutating func scanMemberSeparator() -> Bool? {
        skipWhitespace()
        switch peek() {
        case ASCII.comma:
            index += 1
            skipWhitespace()
            return peek() == ASCII.quote ? true : nil
        case ASCII.closeBrace:
            index += 1
            return false
        default:
            return nil
        }
    }

    // MARK: Keys

    /// Which key of interest a key is. Top level: `aps` or `irrelevant`. Inside `aps`: one of
    /// the four keys read, another Apple key (`known`), or a custom key (`other`).
    private enum KeyName {
        case aps, alert, badge, sound, contentAvailable, known, other, irrelevant
    }

    private struct Key {
        var name: KeyName
        var length: Int
    }

    /// A key, the whitespace and the `:` after it. Keys with escapes decline: they would need
    /// decoding before they can be compared or listed.
    private mutating func scanKey(inAps: Bool) -> Key? {
        guard peek() == ASCII.quote else { return nil }
        index += 1
        let start = index
        guard let hadEscape = scanStringBody(), !hadEscape else { return nil }
        let length = index - 1 - start
        skipWhitespace()
        guard peek() == ASCII.colon else { return nil }
        index += 1
        skipWhitespace()
        let key = UnsafeBufferPointer(rebasing: bytes[start..<start + length])
        let name: KeyName
        if inAps {
            name = Self.classifyApsKey(key)
        } else {
            name = Self.matches(key, "aps") ? .aps : .irrelevant
        }
        return Key(name: name, length: length)
    }

    private static func classifyApsKey(_ key: UnsafeBufferPointer<UInt8>) -> KeyName {
        switch key.count {
        case 5 where matches(key, "alert"): return .alert
        case 5 where matches(key, "badge"): return .badge
        case 5 where matches(key, "sound"): return .sound
        case 17 where matches(key, "content-available"): return .contentAvailable
        default:
            // Apple's other keys are at most 18 bytes: small Strings, no heap allocation.
            return PayloadInspector.knownApsKeys.contains(String(decoding: key, as: UTF8.self)) ? .known : .other
        }
    }

    // MARK: Values

    /// Any JSON value; returns its kind.
    private mutating func scanValue(depth: Int) -> PayloadFacts.Kind? {
        guard let byte = peek() else { return nil }
        switch byte {
        case ASCII.quote:
            index += 1
            return scanStringBody() == nil ? nil : .string
        case ASCII.openBrace:
            index += 1
            return scanObject(depth: depth + 1) ? .dictionary : nil
        case ASCII.openBracket:
            index += 1
            return scanArray(depth: depth + 1) ? .array : nil
        case UInt8(ascii: "t"):
            return scanLiteral("true") ? .boolean : nil
        case UInt8(ascii: "f"):
            return scanLiteral("false") ? .boolean : nil
        case UInt8(ascii: "n"):
            return scanLiteral("null") ? .null : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return scanNumber() ? .number : nil
        default:
            return nil
        }
    }

    /// A nested object after `{`, keys with escapes allowed.
    private mutating func scanObject(depth: Int) -> Bool {
        guard depth <= Self.maxDepth else { return false }
        skipWhitespace()
        if peek() == ASCII.closeBrace { index += 1; return true }
        while true {
            guard peek() == ASCII.quote else { return false }
            index += 1
            guard scanStringBody() != nil else { return false }
            skipWhitespace()
            guard peek() == ASCII.colon else { return false }
            index += 1
            skipWhitespace()
            guard scanValue(depth: depth) != nil else { return false }
            guard let more = scanMemberSeparator() else { return false }
            if !more { return true }
        }
    }

    /// An array after `[`.
    private mutating func scanArray(depth: Int) -> Bool {
        guard depth <= Self.maxDepth else { return false }
        skipWhitespace()
        if peek() == ASCII.closeBracket { index += 1; return true }
        while true {
            guard scanValue(depth: depth) != nil else { return false }
            skipWhitespace()
            switch peek() {
            case ASCII.comma:
                index += 1
                skipWhitespace()
                if peek() == ASCII.closeBracket { return false }  // trailing comma
            case ASCII.closeBracket:
                index += 1
                return true
            default:
                return false
            }
        }
    }

    /// A string's contents after the opening quote, through the closing quote. Returns whether
    /// it held an escape, or `nil` when it is invalid or unsure.
    private mutating func scanStringBody() -> Bool? {
        var hadEscape = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == ASCII.quote { index += 1; return hadEscape }
            if byte == ASCII.backslash {
                hadEscape = true
                guard scanEscape() else { return nil }
            } else if byte < 0x20 {
                return nil  // unescaped control character
            } else if byte < 0x80 {
                index += 1
            } else {
                guard scanUTF8Sequence() else { return nil }
            }
        }
        return nil
    }

    /// An escape starting at the backslash. `\u` escapes of surrogates decline: pairing rules
    /// are Foundation's to judge.
    private mutating func scanEscape() -> Bool {
        guard index + 1 < bytes.count else { return false }
        switch bytes[index + 1] {
        case ASCII.quote, ASCII.backslash, UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
            return true
        case UInt8(ascii: "u"):
            guard index + 5 < bytes.count else { return false }
            var scalar: UInt32 = 0
            for offset in 2...5 {
                guard let digit = Self.hexValue(bytes[index + offset]) else { return false }
                scalar = scalar << 4 | UInt32(digit)
            }
            if scalar >= 0xD800 && scalar <= 0xDFFF { return false }
            index += 6
            return true
        default:
            return false
        }
    }

    /// One well-formed UTF-8 sequence of 2 to 4 bytes (Unicode Table 3-7: no overlongs, no
    /// surrogates, nothing past U+10FFFF).
    private mutating func scanUTF8Sequence() -> Bool {
        let lead = bytes[index]
        let count: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF  // bounds of the second byte
        switch lead {
        case 0xC2...0xDF: count = 2
        case 0xE0: count = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: count = 3
        case 0xED: count = 3; high = 0x9F
        case 0xF0: count = 4; low = 0x90
        case 0xF1...0xF3: count = 4
        case 0xF4: count = 4; high = 0x8F
        default: return false
        }
        guard index + count <= bytes.count else { return false }
        let second = bytes[index + 1]
        guard second >= low && second <= high else { return false }
        var offset = 2
        while offset < count {
            guard bytes[index + offset] & 0xC0 == 0x80 else { return false }
            offset += 1
        }
        index += count
        return true
    }

    private mutating func scanLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count,
              Self.matches(UnsafeBufferPointer(rebasing: bytes[index..<index + count]), literal) else { return false }
        index += count
        return true
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)?`. Exponents and long numbers decline (see the type's
    /// comment).
    private mutating func scanNumber() -> Bool {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), Self.isDigit(first) else { return false }
        index += 1
        if first != UInt8(ascii: "0") {
            while let byte = peek(), Self.isDigit(byte) { index += 1 }
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let byte = peek(), Self.isDigit(byte) else { return false }
            while let byte = peek(), Self.isDigit(byte) { index += 1 }
        }
        if let byte = peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") || Self.isDigit(byte) {
            return false  // exponent, or a leading zero followed by digits
        }
        return index - start <= Self.maxNumberLength
    }

    /// Whether the number literal in `start..<end` equals 1: `1`, or `1.` followed by zeros.
    private func isNumberOne(from start: Int, to end: Int) -> Bool {
        guard end > start, bytes[start] == UInt8(ascii: "1") else { return false }
        var i = start + 1
        guard i < end else { return true }
        guard bytes[i] == UInt8(ascii: ".") else { return false }
        i += 1
        while i < end {
            if bytes[i] != UInt8(ascii: "0") { return false }
            i += 1
        }
        return true
    }

    // MARK: Bytes

    @inline(__always)
    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Byte equality with an ASCII literal, without going through `String`.
    @inline(__always)
    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        let text = literal.utf8Start
        for i in 0..<bytes.count where bytes[i] != text[i] { return false }
        return true
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The structural bytes of JSON.
    private enum ASCII {
        static let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
        static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")
        static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        static let colon = UInt8(ascii: ":"), comma = UInt8(ascii: ",")
    }
}
