import APNsCore
import Foundation

/// Writes the pieces of a compact record (see `CompactRecord` for the layout) into a buffer
/// sized by `CompactRecord.maximumSize`: fixed-width and variable-length integers, and strings
/// in the shortest lossless form it finds.
///
/// It runs on the request path for every push, so it writes raw bytes into a buffer the caller
/// owns (on the stack for usual records) and compares bytes with `memcmp`; every write is still
/// bounds-checked.
struct CompactRecordWriter {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// Where the next byte goes.
    private(set) var position = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    mutating func byte(_ value: UInt8) {
        precondition(position < buffer.count, "compact record: buffer too small")
        buffer[position] = value
        position += 1
    }

    /// Copies `bytes` in.
    mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        precondition(position + bytes.count <= buffer.count, "compact record: buffer too small")
        (buffer.baseAddress! + position).update(from: source, count: bytes.count)
        position += bytes.count
    }

    /// `value` as 8 bytes, little-endian.
    mutating func fixed64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { byte(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// LEB128: 7 bits a byte, low first, the high bit set on every byte but the last (1-10 bytes).
    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            byte(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        byte(UInt8(value))
    }

    /// The bytes `varint(value)` writes.
    static func varintCount(_ value: UInt64) -> Int {
        max(1, (64 - value.leadingZeroBitCount + 6) / 7)
    }

    /// A signed integer, zigzag-mapped (0, -1, 1, -2 … → 0, 1, 2, 3 …) so small magnitudes stay short.
    mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// A length-prefixed run of bytes.
    mutating func blob(_ value: [UInt8]) {
        varint(UInt64(value.count))
        value.withUnsafeBufferPointer { raw($0) }
    }

    /// Writes `text` (or its absence); returns the position of its tag, which a later string
    /// with the same bytes can point back at (`string(_:sameAs:at:)`), and its table code when
    /// it is a `CompactStringTable` string. Tries, in order: the table, a UUID, a hex string,
    /// then the text itself.
    @discardableResult
    mutating func string(_ text: String?) -> (at: Int, code: UInt8?) {
        let start = position
        guard var text else {
            byte(CompactStringTag.absent)
            return (start, nil)
        }
        let code = text.withUTF8 { string(utf8: $0) }
        return (start, code)
    }

    /// Writes the UTF-8 text `utf8` (see `string(_:)`); returns its table code, if any.
    @discardableResult
    mutating func string(utf8: UnsafeBufferPointer<UInt8>) -> UInt8? {
        if let code = CompactStringTable.code(ofUTF8: utf8) {
            byte(CompactStringTag.table)
            byte(code)
            return code
        }
        if !uuid(utf8), !hex(utf8) {
            byte(CompactStringTag.inline)
            varint(UInt64(utf8.count))
            raw(utf8)
        }
        return nil
    }

    /// Writes `text`, pointing back at `earlier` (the tag position of a string written before)
    /// when `earlierText` has the same bytes and `text` is no table string (a code is shorter).
    @discardableResult
    mutating func string(_ text: String?, sameAs earlierText: String?, at earlier: Int?) -> Int {
        guard var text, var earlierText, let earlier else { return string(text).at }
        let start = position
        text.withUTF8 { utf8 in
            if earlierText.withUTF8({ CompactRecordWriter.equal(utf8, $0) }) {
                if let code = CompactStringTable.code(ofUTF8: utf8) {
                    byte(CompactStringTag.table)
                    byte(code)
                } else {
                    byte(CompactStringTag.reference)
                    varint(UInt64(start - earlier))
                }
            } else {
                string(utf8: utf8)
            }
        }
        return start
    }

    /// Writes `text` as `prefix` (a table code) followed by the rest as another string, when
    /// `text` starts with that prefix. Returns the position of the rest's tag and whether the
    /// rest has the same bytes as `sameRest` (so a later string can point at it), or `nil`
    /// (having written nothing) when `text` does not start with the prefix.
    mutating func prefixed(_ text: String, prefix code: UInt8, sameRest: String?) -> (rest: Int, same: Bool)? {
        var text = text
        let prefix = CompactStringTable.bytes(of: code)
        return text.withUTF8 { utf8 -> (rest: Int, same: Bool)? in
            guard utf8.count >= prefix.count,
                CompactRecordWriter.equal(UnsafeBufferPointer(rebasing: utf8[..<prefix.count]), prefix)
            else {
                return nil
            }
            byte(CompactStringTag.prefixed)
            byte(code)
            let restAt = position
            let rest = UnsafeBufferPointer(rebasing: utf8[prefix.count...])
            string(utf8: rest)
            var same = false
            if var sameRest { same = sameRest.withUTF8 { CompactRecordWriter.equal(rest, $0) } }
            return (restAt, same)
        }
    }

    /// `8-4-4-4-12` hex digits, all uppercase or all lowercase: 16 bytes after the tag. Writes
    /// nothing and returns false for anything else.
    private mutating func uuid(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard utf8.count == 36, utf8[8] == 0x2D, utf8[13] == 0x2D, utf8[18] == 0x2D, utf8[23] == 0x2D else {
            return false
        }
        let start = position
        byte(0)  // the tag, once the case is known
        guard let seen = packHexPairs(utf8, uuidDashes: true), let lower = HexDigits.lowercase(seen) else {
            position = start
            return false
        }
        buffer[start] = lower ? CompactStringTag.uuidLower : CompactStringTag.uuidUpper
        return true
    }

    /// An even number (at least 2) of hex digits, all uppercase or all lowercase (device tokens):
    /// half the bytes. Writes nothing and returns false for anything else.
    private mutating func hex(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard utf8.count >= 2, utf8.count % 2 == 0 else { return false }
        let start = position
        byte(0)  // the tag, once the case is known
        varint(UInt64(utf8.count / 2))
        guard let seen = packHexPairs(utf8, uuidDashes: false), let lower = HexDigits.lowercase(seen) else {
            position = start
            return false
        }
        buffer[start] = lower ? CompactStringTag.hexLower : CompactStringTag.hexUpper
        return true
    }

    /// Writes each pair of hex digits of `utf8` as one byte, stepping over a UUID's dashes (at 8,
    /// 13, 18 and 23) when `uuidDashes`. Returns the OR of the digits' table entries (which tells
    /// the letters' case), or nil at the first non-hex character, having moved nothing (the
    /// caller rewinds its tag). One bounds check for the whole run: this packs the device token
    /// of every push.
    @inline(__always)
    private mutating func packHexPairs(_ utf8: UnsafeBufferPointer<UInt8>, uuidDashes: Bool) -> UInt8? {
        let pairs = uuidDashes ? 16 : utf8.count / 2
        precondition(position + pairs <= buffer.count, "compact record: buffer too small")
        let out = buffer.baseAddress! + position, text = utf8.baseAddress!
        let seen = HexDigits.table.withUnsafeBufferPointer { table -> UInt8? in
            var seen: UInt8 = 0
            var i = 0
            var o = 0
            // Eight digits at a time (device tokens), then one pair at a time.
            if !uuidDashes {
                while o + 4 <= pairs {
                    let word = UnsafeRawPointer(text + i).loadUnaligned(as: UInt64.self)
                    guard let (packed, kinds) = HexDigits.pack(word) else { return nil }
                    seen |= kinds
                    UnsafeMutableRawPointer(out + o).storeBytes(of: packed.littleEndian, as: UInt32.self)
                    i += 8
                    o += 4
                }
            }
            for o in o..<pairs {
                if uuidDashes && (i == 8 || i == 13 || i == 18 || i == 23) { i += 1 }
                let a = table[Int(text[i])], b = table[Int(text[i + 1])]
                if a == 0 || b == 0 { return nil }
                seen |= a | b
                out[o] = (a & 0x0F) << 4 | (b & 0x0F)
                i += 2
            }
            return seen
        }
        if seen != nil { position += pairs }
        return seen
    }

    /// Writes `text` as a packed UUID, as `string(_:)` writes a UUID (no table string is 36
    /// bytes long, so it would not be written otherwise); writes nothing and returns false when
    /// `text` is no UUID in one letter case.
    mutating func uuid(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { uuid($0) }
    }

    /// Writes the UUID with these bits as `string(_:)` writes its text: tag, then the 16 bytes.
    /// The tag tells the letter case, and digits alone count as uppercase.
    mutating func uuid(_ bits: UUIDGenerator.Bits) {
        precondition(position + 17 <= buffer.count, "compact record: buffer too small")
        CompactRecordWriter.packUUID(bits, to: buffer.baseAddress! + position)
        position += 17
    }

    /// Writes the 17 bytes of a packed UUID (tag, then the bits big-endian) to `out`, unchecked:
    /// `uuid(_:)` and `CompactRecordTemplate` both write them so.
    @inline(__always)
    static func packUUID(_ bits: UUIDGenerator.Bits, to out: UnsafeMutablePointer<UInt8>) {
        out[0] = bits.uppercase || !bits.hasLetters ? CompactStringTag.uuidUpper : CompactStringTag.uuidLower
        let packed = UnsafeMutableRawPointer(out + 1)
        packed.storeBytes(of: bits.high.bigEndian, as: UInt64.self)
        packed.storeBytes(of: bits.low.bigEndian, toByteOffset: 8, as: UInt64.self)
    }

    /// Whether two byte runs are equal.
    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard a.count > 0 else { return true }
        return memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
    }
}

/// What each byte value is as a hex digit, for packing UUIDs and device tokens (on the request
/// path for every push: a table lookup a character).
enum HexDigits {
    static let digit: UInt8 = 0x10
    static let lowerLetter: UInt8 = 0x20
    static let upperLetter: UInt8 = 0x40

    /// By byte: 0 when it is not a hex digit, else its value (low 4 bits) and its kind.
    static let table: [UInt8] = (0..<256).map { c -> UInt8 in
        switch UInt8(c) {
        case 0x30...0x39: return digit | UInt8(c - 0x30)
        case 0x61...0x66: return lowerLetter | UInt8(c - 0x61 + 10)
        case 0x41...0x46: return upperLetter | UInt8(c - 0x41 + 10)
        default: return 0
        }
    }

    /// Eight ASCII hex digits (little-endian: the first in the low byte) as the four bytes their
    /// pairs stand for (the first pair in the low byte), with the kinds seen (`digit`,
    /// `lowerLetter`, `upperLetter`, as the table's entries OR-ed); nil when one is no hex digit.
    /// Every byte is checked to be ASCII first, so adding a constant below 0x80 to a byte never
    /// carries into the next: the top bit of each byte of `x + (0x80 - low)` then says `x >= low`.
    @inline(__always)
    static func pack(_ word: UInt64) -> (UInt32, UInt8)? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        guard word & high == 0 else { return nil }
        func within(_ x: UInt64, _ low: UInt8, _ top: UInt8) -> UInt64 {
            (x &+ UInt64(0x80 - low) &* ones) & ~(x &+ UInt64(0x7F - top) &* ones) & high
        }
        let digits = within(word, 0x30, 0x39)
        // Letters of either case in one range check, on the bytes with bit 5 set (`A` becomes
        // `a`, digits stay); a letter's own bit 5, moved to the top of its byte, says its case.
        let anyLetter = within(word | (0x20 &* ones), 0x61, 0x66)
        guard digits | anyLetter == high else { return nil }
        let lower = anyLetter & (word << 2)
        let upper = anyLetter & ~(word << 2)
        // A digit's value is its low nibble; a letter's is its low nibble plus 9.
        let letters = anyLetter >> 7
        let nibbles = (word & 0x0F0F_0F0F_0F0F_0F0F) &+ letters &* 9
        // Bytes 2k and 2k+1 become byte k: high nibble first.
        let pairs = ((nibbles & 0x000F_000F_000F_000F) << 4) | ((nibbles >> 8) & 0x000F_000F_000F_000F)
        var packed = pairs & 0x00FF_00FF_00FF_00FF
        packed = (packed | (packed >> 8)) & 0x0000_FFFF_0000_FFFF
        packed = (packed | (packed >> 16)) & 0xFFFF_FFFF
        var kinds: UInt8 = 0
        if digits != 0 { kinds |= digit }
        if lower != 0 { kinds |= lowerLetter }
        if upper != 0 { kinds |= upperLetter }
        return (UInt32(truncatingIfNeeded: packed), kinds)
    }

    /// From the union of the table entries of a run of hex digits: whether they were lowercase
    /// (true) or uppercase (false; digits alone count as uppercase); nil when both cases appeared.
    static func lowercase(_ seen: UInt8) -> Bool? {
        if seen & lowerLetter != 0 && seen & upperLetter != 0 { return nil }
        return seen & lowerLetter != 0
    }
}

/// The first byte of every string in a compact record: how the rest is stored.
enum CompactStringTag {
    /// `nil`.
    static let absent: UInt8 = 0
    /// Length (varint), then the UTF-8 bytes.
    static let inline: UInt8 = 1
    /// One byte: a `CompactStringTable` code.
    static let table: UInt8 = 2
    /// Varint distance back to the tag of an earlier string with the same bytes.
    static let reference: UInt8 = 3
    /// 16 bytes of a UUID written in uppercase or lowercase hex, `8-4-4-4-12`.
    static let uuidUpper: UInt8 = 4
    static let uuidLower: UInt8 = 5
    /// Byte count (varint), then the bytes of an uppercase or lowercase hex string.
    static let hexUpper: UInt8 = 6
    static let hexLower: UInt8 = 7
    /// A `CompactStringTable` code of a prefix, then the rest as another string.
    static let prefixed: UInt8 = 8
}
