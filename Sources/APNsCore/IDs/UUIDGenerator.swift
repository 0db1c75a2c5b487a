import HTTPFields
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
        nextBits(uppercase: uppercase).text
    }

    /// A new UUID's bits only (spelled when needed: `Bits.text`, `Bits.field`).
    package func nextBits(uppercase: Bool) -> Bits {
        let base = counter.add(2, ordering: .relaxed).oldValue
        var high = UUIDGenerator.mix(base &* key)
        var low = UUIDGenerator.mix((base &+ 1) &* key)
        high = (high & ~0xF000) | 0x4000  // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // variant 10
        return Bits(high: high, low: low, uppercase: uppercase)
    }

    /// The 128 bits of a UUID, `high` its first 8 bytes (big-endian), and the letter case of its text.
    package struct Bits {
        package var high: UInt64
        package var low: UInt64
        package var uppercase: Bool

        /// The header field `name` with this UUID as its value.
        package func field(_ name: StaticString) -> UUIDHeaderField {
            UUIDHeaderField(name: name, high: high, low: low, uppercase: uppercase)
        }

        /// The UUID as text.
        package var text: String { UUIDGenerator.format(high: high, low: low, uppercase: uppercase) }

        /// Whether the text has letters: some hex digit is 10 or more (bit 3 and bit 2 or 1 set).
        package var hasLetters: Bool {
            let mask: UInt64 = 0x8888_8888_8888_8888
            return (high & (high << 1 | high << 2) & mask) | (low & (low << 1 | low << 2) & mask) != 0
        }
    }

    /// The 128 bits `high ‖ low` as a UUID string, 8-4-4-4-12 hex digits
    /// (`UUIDHeaderField.spell`).
    static func format(high: UInt64, low: UInt64, uppercase: Bool) -> String {
        UUIDHeaderField(name: "", high: high, low: low, uppercase: uppercase).value
    }

    /// SplitMix64's finaliser: a bijection that spreads every input bit over the output.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
