/// A token bucket for one device token of a `rateLimit` rule: `capacity` pushes at once,
/// refilled at `perSecond`, on the requests' own clock (milliseconds).
struct TokenBucket: Sendable {
    private var tokens: Double
    private var lastMilliseconds: Int64

    /// A full bucket at `now`.
    init(capacity: Double, now: Int64) {
        tokens = capacity
        lastMilliseconds = now
    }

    /// Refills for the time since the last call, then takes one token if there is one.
    /// - Returns: false when the push is over the rate.
    mutating func take(now: Int64, perSecond: Double, capacity: Double) -> Bool {
        refill(now: now, perSecond: perSecond, capacity: capacity)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// True when the bucket would be full at `now`, i.e. as good as absent (pruning).
    func isFull(now: Int64, perSecond: Double, capacity: Double) -> Bool {
        var copy = self
        copy.refill(now: now, perSecond: perSecond, capacity: capacity)
        return copy.tokens >= capacity
    }

    private mutating func refill(now: Int64, perSecond: Double, capacity: Double) {
        // A clock going backwards (tests move it) refills nothing rather than draining.
        let elapsed = max(0, now - lastMilliseconds)
        tokens = min(capacity, tokens + Double(elapsed) * perSecond / 1000)
        lastMilliseconds = max(lastMilliseconds, now)
    }
}
