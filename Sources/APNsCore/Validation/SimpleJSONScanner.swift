import Glibc

/// The fastest path of `PayloadScanner`: reads a body in one pass when it is *simple* JSON, and
/// tells `PayloadScanner.ScanState` the same events, in the same order, as yajl does (start and
/// end of objects and arrays, keys, values). Simple means: ASCII only, whitespace only space,
/// tab, CR and LF, no escape in any string, no control character, numbers of at most 15
/// characters without an exponent, nesting of at most 63 levels. On anything else, valid or not,
/// it gives up (returns false, its events to be discarded) and yajl reads the body as before, so
/// it never decides a body yajl would decide otherwise: what it accepts is JSON by the grammar of
/// RFC 8259, which yajl accepts with the same events. Push bodies are nearly always simple.
enum SimpleJSONScanner {
    /// Feeds `body`'s events to `state`; true when `body` is one simple JSON value (then `state`
    /// is what yajl's events would have made it), false when yajl must read it.
    static func scan(_ body: UnsafeBufferPointer<UInt8>, into state: inout PayloadScanner.ScanState) -> Bool {
        guard let p = body.baseAddress else { return false }
        let n = body.count
        var i = 0
        var depth = 0
        /// Bit `d`: the container at depth `d` is an array (else an object).
        var arrays: UInt64 = 0

        @inline(__always) func skipWhitespace() {
            while i < n {
                let c = p[i]
                guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
                i += 1
            }
        }
        /// A string without escapes at `i` (its opening quote): its bytes, `i` past its closing quote.
        @inline(__always) func string() -> UnsafeBufferPointer<UInt8>? {
            let start = i + 1
            var j = start
            while j < n {
                let c = p[j]
                if c == UInt8(ascii: "\"") {
                    i = j + 1
                    return UnsafeBufferPointer(start: p + start, count: j - start)
                }
                if c < 0x20 || c >= 0x80 || c == UInt8(ascii: "\\") { return nil }
                j += 1
            }
            return nil
        }
        /// A key at `i` (after whitespace) and its colon.
        @inline(__always) func key() -> Bool {
            skipWhitespace()
            guard i < n, p[i] == UInt8(ascii: "\""), let key = string() else { return false }
            state.key(key)
            skipWhitespace()
            guard i < n, p[i] == UInt8(ascii: ":") else { return false }
            i += 1
            return true
        }
        @inline(__always) func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard n - i >= count, memcmp(p + i, text.utf8Start, count) == 0 else { return false }
            i += count
            return true
        }
        @inline(__always) func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
        /// A number at `i`: `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)?, at most 15 characters.
        @inline(__always) func number() -> UnsafeBufferPointer<UInt8>? {
            let start = i
            if p[i] == UInt8(ascii: "-") { i += 1 }
            guard i < n, isDigit(p[i]) else { return nil }
            if p[i] == UInt8(ascii: "0") {
                i += 1
            } else {
                while i < n, isDigit(p[i]) { i += 1 }
            }
            if i < n, p[i] == UInt8(ascii: ".") {
                i += 1
                guard i < n, isDigit(p[i]) else { return nil }
                while i < n, isDigit(p[i]) { i += 1 }
            }
            guard i - start <= 15 else { return nil }
            return UnsafeBufferPointer(start: p + start, count: i - start)
        }

        value: while true {
            skipWhitespace()
            guard i < n else { return false }
            switch p[i] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isArray = p[i] == UInt8(ascii: "[")
                state.open(isArray ? .array : .dictionary)
                depth += 1
                guard depth < 64 else { return false }
                if isArray { arrays |= 1 << UInt64(depth) } else { arrays &= ~(1 << UInt64(depth)) }
                i += 1
                skipWhitespace()
                guard i < n else { return false }
                if p[i] == (isArray ? UInt8(ascii: "]") : UInt8(ascii: "}")) {
                    i += 1
                    state.close()
                    depth -= 1
                } else if isArray {
                    continue value
                } else {
                    guard key() else { return false }
                    continue value
                }
            case UInt8(ascii: "\""):
                guard string() != nil else { return false }
                state.value(.string)
            case UInt8(ascii: "t"):
                guard literal("true") else { return false }
                state.value(.boolean)
            case UInt8(ascii: "f"):
                guard literal("false") else { return false }
                state.value(.boolean)
            case UInt8(ascii: "n"):
                guard literal("null") else { return false }
                state.value(.null)
            default:
                guard let text = number() else { return false }
                state.value(.number, number: text)
            }
            // After a value: a comma, the end of its container, or the end of the body.
            while true {
                skipWhitespace()
                if depth == 0 { return i == n }
                guard i < n else { return false }
                let inArray = arrays & (1 << UInt64(depth)) != 0
                if p[i] == UInt8(ascii: ",") {
                    i += 1
                    if !inArray { guard key() else { return false } }
                    continue value
                }
                guard p[i] == (inArray ? UInt8(ascii: "]") : UInt8(ascii: "}")) else { return false }
                i += 1
                state.close()
                depth -= 1
            }
        }
    }
}
