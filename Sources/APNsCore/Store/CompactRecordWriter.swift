/// Appends the pieces of a compact record (see `CompactRecord` for the layout) to a byte
/// buffer: fixed-width and variable-length integers, and strings in the shortest lossless form
/// it finds.
struct CompactRecordWriter {
    /// The bytes written so far.
    private(set) var bytes: [UInt8] = []

    /// Reserves room for `capacity` bytes, so a buffer sized by `CompactRecord.maximumSize` never
    /// grows while writing.
    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Where the next byte goes.
    var position: Int { bytes.count }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    /// `value` as 8 bytes, little-endian.
    mutating func fixed64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// LEB128: 7 bits a byte, low first, the high bit set on every byte but the last (1-10 bytes).
    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A signed integer, zigzag-mapped (0, -1, 1, -2 … → 0, 1, 2, 3 …) so small magnitudes stay short.
    mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// A length-prefixed run of bytes.
    mutating func blob(_ value: [UInt8]) {
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// Writes `text` (or its absence) and returns the position of its tag, which a later field
    /// holding the same bytes can point at with `reference(to:)`. Tries, in order: the static
    /// table, a UUID, a hex string, then the text itself.
    @discardableResult
    mutating func string(_ text: String?) -> Int {
        let start = position
        guard var text else {
            byte(CompactStringTag.absent)
            return start
        }
        text.withUTF8 { string(utf8: $0) }
        return start
    }

    /// Writes the UTF-8 text `utf8` (see `string(_:)`).
    private mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        if let code = CompactStringTable.code(ofUTF8: utf8) {
            byte(CompactStringTag.table)
            byte(code)
        } else if !uuid(utf8), !hex(utf8) {
            byte(CompactStringTag.inline)
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Writes `text`, pointing back at `earlier` (a string written before, whose tag is at that
    /// position) when `earlierText` is the same bytes and not itself a one-byte table code.
    @discardableResult
    mutating func string(_ text: String?, sameAs earlierText: String?, at earlier: Int?) -> Int {
        guard let text, let earlierText, let earlier, CompactRecordWriter.sameBytes(text, earlierText),
              CompactStringTable.code(of: text) == nil else {
            return string(text)
        }
        let start = position
        byte(CompactStringTag.reference)
        varint(UInt64(start - earlier))
        return start
    }

    /// Writes `text` as `prefix` (a table code) followed by the rest as another string, when
    /// `text` starts with that prefix. Returns the position of the rest's tag, or `nil` (having
    /// written nothing) when `text` does not start with the prefix.
    mutating func prefixed(_ text: String, prefix code: UInt8) -> Int? {
        let prefix = CompactStringTable.utf8[Int(code)]
        var text = text
        return text.withUTF8 { utf8 -> Int? in
            guard utf8.starts(with: prefix) else { return nil }
            byte(CompactStringTag.prefixed)
            byte(code)
            let rest = position
            string(utf8: UnsafeBufferPointer(rebasing: utf8[prefix.count...]))
            return rest
        }
    }

    /// `8-4-4-4-12` hex digits, all uppercase or all lowercase: 16 bytes after the tag.
    private mutating func uuid(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard utf8.count == 36, utf8[8] == 0x2D, utf8[13] == 0x2D, utf8[18] == 0x2D, utf8[23] == 0x2D else { return false }
        var case_ = HexCase.either
        for (i, c) in utf8.enumerated() where i != 8 && i != 13 && i != 18 && i != 23 {
            guard case_.admit(c) else { return false }
        }
        byte(case_ == .lower ? CompactStringTag.uuidLower : CompactStringTag.uuidUpper)
        var high: UInt8?
        for (i, c) in utf8.enumerated() where i != 8 && i != 13 && i != 18 && i != 23 {
            let nibble = HexCase.value(c)
            if let h = high { byte(h << 4 | nibble); high = nil } else { high = nibble }
        }
        return true
    }

    /// An even number (at least 2) of hex digits, all uppercase or all lowercase (device tokens):
    /// half the bytes.
    private mutating func hex(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard utf8.count >= 2, utf8.count % 2 == 0 else { return false }
        var case_ = HexCase.either
        for c in utf8 { guard case_.admit(c) else { return false } }
        byte(case_ == .lower ? CompactStringTag.hexLower : CompactStringTag.hexUpper)
        varint(UInt64(utf8.count / 2))
        var i = 0
        while i < utf8.count {
            byte(HexCase.value(utf8[i]) << 4 | HexCase.value(utf8[i + 1]))
            i += 2
        }
        return true
    }

    /// Whether `a` and `b` are the same UTF-8 bytes (`==` on strings also equates canonically
    /// equivalent text, which would not round-trip).
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
    }
}

/// The letter case of a run of hex digits; digits alone fit either.
private enum HexCase {
    case either, lower, upper

    /// Takes in `c`; false when it is not a hex digit or breaks the case seen so far.
    mutating func admit(_ c: UInt8) -> Bool {
        switch c {
        case 0x30...0x39: return true
        case 0x61...0x66:
            if self == .upper { return false }
            self = .lower
            return true
        case 0x41...0x46:
            if self == .lower { return false }
            self = .upper
            return true
        default: return false
        }
    }

    /// The value of a hex digit already admitted.
    static func value(_ c: UInt8) -> UInt8 {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x61 + 10
        default: return c - 0x41 + 10
        }
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
