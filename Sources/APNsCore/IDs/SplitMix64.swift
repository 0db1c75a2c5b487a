/// SplitMix64 (Steele, Lea, Flood 2014): a tiny deterministic generator, so a seeded
/// `probability` rule (target Faults) and a virtual device's low-power bursts (target Devices)
/// give the same outcomes on every run and platform (the standard library offers no seedable
/// generator).
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [0, 1) from the top 53 bits.
    package mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
}
