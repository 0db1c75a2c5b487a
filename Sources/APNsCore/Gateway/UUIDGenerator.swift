import Synchronization

/// Makes random version-4 UUID strings (RFC 9562) for generated `apns-id` and `apns-unique-id`
/// values, without a system call per ID: Foundation's `UUID()` opens /dev/urandom for each one,
/// which cost a fifth of the request path. IDs need to be unique and unpredictable enough for
/// tests, not secret, so SplitMix64 over a randomly seeded atomic counter is enough.
public final class UUIDGenerator: Sendable {
    private let counter: Atomic<UInt64>
    private let key: UInt64

    /// Seeds from the system's random source once.
    public init() {
        var system = SystemRandomNumberGenerator()
        counter = Atomic(system.next())
        key = system.next() | 1
    }

    /// A new UUID, e.g. `5CEB1110-A7CE-4F34-94CD-1B8A9C6DF677`, uppercase when `uppercase`.
    public func next(uppercase: Bool) -> String {
        nextUUID(uppercase: uppercase).text
    }

    /// A new UUID as text (as `next(uppercase:)`) and as its 128 bits, so that the record can
    /// store it without parsing the text back.
    func nextUUID(uppercase: Bool) -> Value {
        let base = counter.add(2, ordering: .relaxed).oldValue
        var high = UUIDGenerator.mix(base &* key)
        var low = UUIDGenerator.mix((base &+ 1) &* key)
        high = (high & ~0xF000) | 0x4000                          // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000 // variant 10
        return Value(text: UUIDGenerator.format(high: high, low: low, uppercase: uppercase),
                     bits: Bits(high: high, low: low, uppercase: uppercase))
    }

    /// A generated UUID.
    struct Value {
        var text: String
        var bits: Bits
    }

    /// The 128 bits of a UUID, `high` its first 8 bytes (big-endian), and the letter case of its text.
    struct Bits {
        var high: UInt64
        var low: UInt64
        var uppercase: Bool

        /// Whether the text has letters: some hex digit is 10 or more (bit 3 and bit 2 or 1 set).
        var hasLetters: Bool {
            let mask: UInt64 = 0x8888_8888_8888_8888
            return (high & (high << 1 | high << 2) & mask) | (low & (low << 1 | low << 2) & mask) != 0
        }
    }

    /// The 128 bits `high ‖ low` as a UUID string, 8-4-4-4-12 hex digits, eight digits at a
    /// time (one digit at a time cost about 1,200 instructions per UUID, two UUIDs per response).
    static func format(high: UInt64, low: UInt64, uppercase: Bool) -> String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            let out = UnsafeMutableRawPointer(buffer.baseAddress!)
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
            for hyphen in [8, 13, 18, 23] { buffer[hyphen] = UInt8(ascii: "-") }
            return 36
        }
    }

    /// The 8 hex digits of `value` in ASCII, most significant first in memory order: each nibble
    /// is spread into a byte of its own, then turned into `0`-`9` or a letter, all bytes at once.
    static func hexDigits(_ value: UInt32, uppercase: Bool) -> UInt64 {
        var x = UInt64(value)
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
        x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F  // byte k holds nibble k, least significant first
        let letters = ((x &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101  // 1 where the nibble is 10-15
        let ascii = x &+ 0x3030_3030_3030_3030 &+ letters &* (uppercase ? 7 : 39)  // '0' + n, or 'A'/'a' + n - 10
        return ascii.bigEndian  // the most significant nibble's digit first in memory
    }

    /// SplitMix64's finaliser: a bijection that spreads every input bit over the output.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
