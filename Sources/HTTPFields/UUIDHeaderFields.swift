/// A header field whose value is a UUID given by its 128 bits, spelled as 8-4-4-4-12 hex digits
/// (RFC 9562) only when written.
///
/// A response that carries IDs made for it (APNs's `apns-id` and `apns-unique-id`) would
/// otherwise build a 36-byte `String` per ID: a heap allocation, UTF-8 validation and a release
/// on the request path (bench/README.md, "Profile and fix"). The transport spells the digits
/// straight into the bytes it hands to nghttp2.
///
/// A plain value (a static name, two words, a flag): copying one costs no reference counting.
public struct UUIDHeaderField: Sendable, Equatable {
    /// The field name, lowercase.
    public var name: StaticString
    /// The UUID's first 8 bytes (big-endian: the first hex digit is the top nibble) and last 8.
    public var high: UInt64
    public var low: UInt64
    /// Letter case of the hex digits A-F.
    public var uppercase: Bool

    @inlinable
    public init(name: StaticString, high: UInt64, low: UInt64, uppercase: Bool) {
        self.name = name
        self.high = high
        self.low = low
        self.uppercase = uppercase
    }

    /// Same name (by bytes), same UUID, same letter case.
    public static func == (a: UUIDHeaderField, b: UUIDHeaderField) -> Bool {
        a.high == b.high && a.low == b.low && a.uppercase == b.uppercase
            && a.name.withUTF8Buffer { x in b.name.withUTF8Buffer { y in x.elementsEqual(y) } }
    }

    /// The length of the spelled value in bytes.
    public static let valueLength = 36

    /// The value as text, e.g. `5CEB1110-A7CE-4F34-94CD-1B8A9C6DF677`.
    public var value: String {
        String(unsafeUninitializedCapacity: UUIDHeaderField.valueLength) { buffer in
            UUIDHeaderField.spell(
                high: high, low: low, uppercase: uppercase, into: UnsafeMutableRawPointer(buffer.baseAddress!))
            return UUIDHeaderField.valueLength
        }
    }

    /// The field as a `HeaderField` (its value spelled).
    public var field: HeaderField { HeaderField(name: name.description, value: value) }

    /// Writes the 36 ASCII bytes of the UUID `high ‖ low` to `out`, eight digits at a time (one
    /// digit at a time was slower: bench/README.md, "Profile and fix").
    public static func spell(high: UInt64, low: UInt64, uppercase: Bool, into out: UnsafeMutableRawPointer) {
        func put(_ value: UInt64, at first: Int, split second: Int? = nil) {
            withUnsafeBytes(of: hexDigits(UInt32(truncatingIfNeeded: value), uppercase: uppercase)) { digits in
                guard let second else {
                    (out + first).copyMemory(from: digits.baseAddress!, byteCount: 8)
                    return
                }
                (out + first).copyMemory(from: digits.baseAddress!, byteCount: 4)
                (out + second).copyMemory(from: digits.baseAddress! + 4, byteCount: 4)
            }
        }
        put(high >> 32, at: 0)
        put(high, at: 9, split: 14)
        put(low >> 32, at: 19, split: 24)
        put(low, at: 28)
        for hyphen in [8, 13, 18, 23] { out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: hyphen, as: UInt8.self) }
    }

    /// The 8 hex digits of `value` in ASCII, most significant first in memory order: each nibble
    /// is spread into a byte of its own, then turned into `0`-`9` or a letter, all bytes at once.
    public static func hexDigits(_ value: UInt32, uppercase: Bool) -> UInt64 {
        var x = UInt64(value)
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
        x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F  // byte k holds nibble k, least significant first
        let letters = ((x &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101  // 1 where the nibble is 10-15
        let ascii = x &+ 0x3030_3030_3030_3030 &+ letters &* (uppercase ? 7 : 39)  // '0' + n, or 'A'/'a' + n - 10
        return ascii.bigEndian  // the most significant nibble's digit first in memory
    }
}

/// At most two `UUIDHeaderField`s, kept inline (no array, so no heap allocation), in the order
/// appended. A response sends them after its other header fields. Inlinable: the request path
/// reads it from other modules.
public struct UUIDHeaderFields: Sendable, Equatable {
    @usableFromInline var first: UUIDHeaderField
    @usableFromInline var second: UUIDHeaderField
    @usableFromInline var stored: Int

    @inlinable
    public init() {
        first = UUIDHeaderField(name: "", high: 0, low: 0, uppercase: false)
        second = first
        stored = 0
    }

    /// The most fields it holds.
    public static let capacity = 2

    /// How many fields it holds (0, 1 or 2).
    @inlinable
    public var count: Int { stored }

    @inlinable
    public var isEmpty: Bool { stored == 0 }

    /// Adds `field` after the others. Traps when already full (`capacity`).
    @inlinable
    public mutating func append(_ field: UUIDHeaderField) {
        switch stored {
        case 0: first = field
        case 1: second = field
        default: preconditionFailure("UUIDHeaderFields: at most 2 fields")
        }
        stored += 1
    }

    /// The field at `index` (0 ..< count).
    @inlinable
    public subscript(index: Int) -> UUIDHeaderField {
        precondition(index >= 0 && index < stored, "UUIDHeaderFields: index out of range")
        return index == 0 ? first : second
    }

    /// The fields as `HeaderField`s, values spelled.
    public var fields: [HeaderField] { (0..<count).map { self[$0].field } }

    /// The same fields in the same order.
    public static func == (a: UUIDHeaderFields, b: UUIDHeaderFields) -> Bool {
        a.count == b.count && (0..<a.count).allSatisfy { a[$0] == b[$0] }
    }
}
