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
        let base = counter.add(2, ordering: .relaxed).oldValue
        var high = UUIDGenerator.mix(base &* key)
        var low = UUIDGenerator.mix((base &+ 1) &* key)
        high = (high & ~0xF000) | 0x4000                          // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000 // variant 10
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var index = 0
            func put(_ value: UInt64, nibbles: Int) {
                for shift in stride(from: (nibbles - 1) * 4, through: 0, by: -4) {
                    buffer[index] = digits.utf8Start[Int((value >> UInt64(shift)) & 0xF)]
                    index += 1
                }
            }
            put(high >> 32, nibbles: 8); buffer[index] = UInt8(ascii: "-"); index += 1
            put(high >> 16, nibbles: 4); buffer[index] = UInt8(ascii: "-"); index += 1
            put(high, nibbles: 4); buffer[index] = UInt8(ascii: "-"); index += 1
            put(low >> 48, nibbles: 4); buffer[index] = UInt8(ascii: "-"); index += 1
            put(low, nibbles: 12)
            return index
        }
    }

    /// SplitMix64's finaliser: a bijection that spreads every input bit over the output.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
