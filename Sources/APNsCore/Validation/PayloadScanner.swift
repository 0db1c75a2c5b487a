import CYAJL
import Glibc

/// The fast path of `PayloadInspector`: reads a push body with yajl, an event-driven C parser, and
/// gathers `PayloadFacts` from its events without building Foundation objects, which costs far
/// less than `JSONSerialization` (bench/callgrind.sh "varied"; figures in bench/README.md).
///
/// It only ever answers "this is a JSON object with these facts", and only where yajl and
/// `JSONSerialization` are known to agree; everything else returns nil and the body goes to
/// `JSONSerialization`, which then decides, and words the message, exactly as before. The two
/// disagree (a differential test, `PayloadScannerTests`, over hand-picked and mutated bodies) on:
/// - whitespace: yajl also skips form feed and vertical tab;
/// - `\u` escapes of UTF-16 surrogates: yajl accepts a lone one;
/// - UTF-8: yajl accepts overlong forms, encoded surrogates and code points above U+10FFFF;
/// - numbers: Foundation refuses what overflows a `Double` and integers of about 400 digits;
/// - nesting: Foundation refuses about 512 levels, yajl has no limit;
/// - trailing commas and a byte-order mark, which Foundation accepts and yajl refuses.
/// So a body with a form feed, a vertical tab or a surrogate escape, any non-ASCII body that is not
/// valid UTF-8 (checked by the standard library), a number with an exponent or of more than 15
/// characters, or nesting deeper than 64 levels goes to Foundation; yajl's refusals do too.
enum PayloadScanner {
    /// The facts of `body` when it is a JSON object both parsers accept; nil when Foundation must
    /// decide (see the type's comment). `body` is not empty.
    static func facts(of body: UnsafeBufferPointer<UInt8>) -> PayloadFacts? {
        facts(of: body, scratch: nil)
    }

    /// `facts(of:)` with yajl's memory from `scratch` when given (no heap allocation for an
    /// ordinary body: `PayloadScratch`), else from a 1,024-byte stack buffer and `malloc`.
    static func facts(of body: UnsafeBufferPointer<UInt8>, scratch: PayloadScratch?) -> PayloadFacts? {
        guard let base = body.baseAddress, preflight(body) else { return nil }
        var state = ScanState()
        let ok: Bool
        if let scratch {
            ok = parse(base, body.count, state: &state, scratch: scratch)
        } else {
            ok = withUnsafeTemporaryAllocation(byteCount: ScannerArena.bytes, alignment: ScannerArena.header) {
                memory -> Bool in
                var arena = ScannerArena(memory)
                return parse(base, body.count, state: &state, arena: &arena)
            }
        }
        guard ok, !state.undecided, state.topLevel == .dictionary else { return nil }
        // Moved out, not copied: a copy of the facts and a destroy of the state's (bench/callgrind.sh).
        var facts = PayloadFacts()
        swap(&facts, &state.facts)
        return facts
    }

    /// Runs yajl over `count` bytes at `base` with `state` as its context and its memory from
    /// `arena`, on a handle made for this parse; true when both yajl calls succeed.
    static func parse(
        _ base: UnsafePointer<UInt8>, _ count: Int, state: inout ScanState, arena: inout ScannerArena
    ) -> Bool {
        withUnsafeMutablePointer(to: &arena) { arena in
            var functions = ScannerArena.functions(arena)
            return withUnsafeMutablePointer(to: &state) { state -> Bool in
                // The callbacks' context is a cell holding the state's address (as with a scratch).
                var cell: UnsafeMutableRawPointer? = UnsafeMutableRawPointer(state)
                return withUnsafeMutablePointer(to: &cell) { context -> Bool in
                    let handle = withUnsafeMutablePointer(to: &functions) {
                        yajl_alloc(callbacks, $0, UnsafeMutableRawPointer(context))
                    }
                    guard let handle else { return false }
                    defer { yajl_free(handle) }
                    guard yajl_parse(handle, base, count) == yajl_status_ok else { return false }
                    return yajl_complete_parse(handle) == yajl_status_ok
                }
            }
        }
    }

    /// `parse(_:_:state:arena:)` on `scratch`'s handle, kept for the next parse when both yajl
    /// calls succeed and freed otherwise (`PayloadScratch`).
    static func parse(
        _ base: UnsafePointer<UInt8>, _ count: Int, state: inout ScanState, scratch: PayloadScratch
    ) -> Bool {
        guard let handle = scratch.takeHandle(callbacks: callbacks) else { return false }
        let ok = withUnsafeMutablePointer(to: &state) { state -> Bool in
            scratch.context.pointee = UnsafeMutableRawPointer(state)
            defer { scratch.context.pointee = nil }
            guard yajl_parse(handle, base, count) == yajl_status_ok else { return false }
            return yajl_complete_parse(handle) == yajl_status_ok
        }
        if !ok { scratch.discardHandle() }
        return ok
    }

    /// The byte-level checks: no form feed or vertical tab, no `\u` escape of a surrogate, and
    /// strict UTF-8 when any byte is not ASCII.
    @inline(__always)
    static func preflight(_ body: UnsafeBufferPointer<UInt8>) -> Bool {
        var nonASCII = false
        var index = 0
        let count = body.count
        // Eight bytes at a time while none of them needs a look: no byte at or above 0x80, no
        // form feed or vertical tab, no backslash (a push body is mostly such runs).
        if let base = body.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= count
                && PayloadScanner.isPlain(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            {
                index += 8
            }
        }
        while index < count {
            let byte = body[index]
            if byte >= 0x80 {
                nonASCII = true
            } else if byte == 0x0B || byte == 0x0C {
                return false
            } else if byte == UInt8(ascii: "\\") {
                // `\u` then a hex digit pair D8-DF: a surrogate (paired or not: Foundation decides).
                if index + 2 < count, body[index + 1] == UInt8(ascii: "u"),
                    body[index + 2] | 0x20 == UInt8(ascii: "d"),
                    index + 3 < count, isSurrogateSecondDigit(body[index + 3])
                {
                    return false
                }
                index += 1  // skip the escaped character (`\\`, `\"`)
            }
            index += 1
        }
        if nonASCII && String(validating: body, as: UTF8.self) == nil { return false }
        return true
    }

    /// Whether none of the eight bytes of `word` is at or above 0x80, 0x0B, 0x0C or `\\`: the
    /// bytes `preflight` looks at one by one. (With every byte below 0x80, a byte equals `c`
    /// when that byte of `word ^ c…c` is 0, and `(x - 0x01…01) & ~x & 0x80…80` is nonzero exactly
    /// when some byte of `x` is 0.)
    @inline(__always)
    static func isPlain(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        guard word & high == 0 else { return false }
        func hasByte(_ c: UInt8) -> Bool {
            let x = word ^ (UInt64(c) &* ones)
            return (x &- ones) & ~x & high != 0
        }
        return !hasByte(0x0B) && !hasByte(0x0C) && !hasByte(UInt8(ascii: "\\"))
    }

    @inline(__always)
    private static func isSurrogateSecondDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "8")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// Deeper nesting goes to Foundation (whose limit is about 512 levels).
    static let maximumDepth = 64

    /// What the events have shown so far.
    struct ScanState {
        var facts = PayloadFacts()
        /// The kind of the top-level value (`.absent` before the first event).
        var topLevel = PayloadFacts.Kind.absent
        /// Open objects and arrays.
        var depth = 0
        /// Set when Foundation must decide (a number it may refuse, deep nesting).
        var undecided = false
        /// At depth 1: the key just read is `aps`.
        var keyIsAps = false
        /// At depth 2: inside the top-level `aps` object.
        var inAps = false
        /// At depth 2 in `aps`: the key just read.
        var apsKey = ApsKey.other
        /// `unknownApsKeys` as a set, for duplicate keys (Foundation keeps one of each).
        var unknownSeen: Set<String> = []

        enum ApsKey { case alert, badge, sound, contentAvailable, other }

        /// A value of `kind` begins at the current depth (`text` is a number's text).
        mutating func value(_ kind: PayloadFacts.Kind, number: UnsafeBufferPointer<UInt8>? = nil) {
            if depth == 0 {
                // A second top-level value (a reused handle reads several): Foundation refuses it.
                if topLevel != .absent { undecided = true }
                topLevel = kind
            } else if depth == 1 && keyIsAps {
                facts.aps = kind
                keyIsAps = false
            } else if depth == 2 && inAps {
                switch apsKey {
                case .alert: facts.alert = kind
                case .badge: facts.badge = kind
                case .sound: facts.sound = kind
                case .contentAvailable:
                    facts.contentAvailable = kind
                    facts.contentAvailableIsOne = kind == .number && number.map(ScanState.isOne) == true
                case .other: break
                }
            }
        }

        /// A key at the current depth.
        mutating func key(_ key: UnsafeBufferPointer<UInt8>) {
            if depth == 1 {
                keyIsAps = ScanState.matches(key, "aps")
                // A later `aps` replaces an earlier one, as in Foundation's dictionary.
                if keyIsAps {
                    facts = PayloadFacts()
                    unknownSeen = []
                }
            } else if depth == 2 && inAps {
                apsKey = ScanState.apsKey(key)
                if apsKey != .contentAvailable { facts.apsHasOtherKeys = true }
                if apsKey == .other {
                    let name = String(decoding: key, as: UTF8.self)
                    if !PayloadInspector.knownApsKeys.contains(name) && unknownSeen.insert(name).inserted {
                        facts.unknownApsKeys.append(name)
                    }
                }
            }
        }

        mutating func open(_ kind: PayloadFacts.Kind) {
            let entersAps = kind == .dictionary && depth == 1 && keyIsAps
            value(kind)
            depth += 1
            if entersAps { inAps = true }
            if depth > PayloadScanner.maximumDepth { undecided = true }
        }

        mutating func close() {
            depth -= 1
            if depth == 1 { inAps = false }
        }

        static func apsKey(_ key: UnsafeBufferPointer<UInt8>) -> ApsKey {
            switch key.count {
            case 5 where matches(key, "alert"): return .alert
            case 5 where matches(key, "badge"): return .badge
            case 5 where matches(key, "sound"): return .sound
            case 17 where matches(key, "content-available"): return .contentAvailable
            default: return .other
            }
        }

        @inline(__always)
        static func matches(_ key: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
            key.count == literal.utf8CodeUnitCount
                && (key.count == 0 || memcmp(key.baseAddress!, literal.utf8Start, key.count) == 0)
        }

        /// `1`, `1.0`, `1.00`…: the number 1 (exponents never get here).
        static func isOne(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
            guard text.first == UInt8(ascii: "1") else { return false }
            guard text.count > 1 else { return true }
            guard text[1] == UInt8(ascii: ".") else { return false }
            return text.dropFirst(2).allSatisfy { $0 == UInt8(ascii: "0") }
        }
    }

    // yajl's callbacks: each returns 1 to go on. Made once, never written again, and lent to
    // yajl by address: a pointer constant rather than a `static var`, whose every use was a
    // dynamic exclusivity check (about 120 instructions a parse).
    nonisolated(unsafe) private static let callbacks: UnsafePointer<yajl_callbacks> = {
        var callbacks = yajl_callbacks()
        callbacks.yajl_null = { context in
            state(context).value(.null)
            return 1
        }
        callbacks.yajl_boolean = { context, _ in
            state(context).value(.boolean)
            return 1
        }
        callbacks.yajl_number = { context, text, length in
            let state = state(context)
            // Foundation refuses numbers that overflow a Double; long or exponent forms go to it.
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(text!).assumingMemoryBound(to: UInt8.self), count: length)
            if length > 15 || bytes.contains(where: { $0 | 0x20 == UInt8(ascii: "e") }) {
                state.pointee.undecided = true
            }
            state.pointee.value(.number, number: bytes)
            return 1
        }
        callbacks.yajl_string = { context, _, _ in
            state(context).value(.string)
            return 1
        }
        callbacks.yajl_start_map = { context in
            state(context).open(.dictionary)
            return 1
        }
        callbacks.yajl_map_key = { context, key, length in
            state(context).key(UnsafeBufferPointer(start: key, count: length))
            return 1
        }
        callbacks.yajl_end_map = { context in
            state(context).close()
            return 1
        }
        callbacks.yajl_start_array = { context in
            state(context).open(.array)
            return 1
        }
        callbacks.yajl_end_array = { context in
            state(context).close()
            return 1
        }
        let stored = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)
        stored.initialize(to: callbacks)
        return UnsafePointer(stored)
    }()

    /// The current parse's state: `context` is a cell holding its address.
    @inline(__always)
    private static func state(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<ScanState> {
        context!.load(as: UnsafeMutableRawPointer.self).assumingMemoryBound(to: ScanState.self)
    }
}

extension UnsafeMutablePointer where Pointee == PayloadScanner.ScanState {
    @inline(__always) fileprivate func value(_ kind: PayloadFacts.Kind) { pointee.value(kind) }
    @inline(__always) fileprivate func open(_ kind: PayloadFacts.Kind) { pointee.open(kind) }
    @inline(__always) fileprivate func close() { pointee.close() }
    @inline(__always) fileprivate func key(_ key: UnsafeBufferPointer<UInt8>) { pointee.key(key) }
}
