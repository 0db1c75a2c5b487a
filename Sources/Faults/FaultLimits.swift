/// Bounds on fault rule values, so a typo cannot stall a connection for years.
package enum FaultLimits {
    /// The longest delay or close-after, in milliseconds: one day.
    package static let maxMilliseconds: Int64 = 86_400_000
    /// The highest rate of a `rateLimit` action, requests per second.
    static let maxPerSecond: Double = 1_000_000
    /// The largest id, in characters.
    static let maxIDLength = 64
}
