/// The parameters of a `rateLimit` action: a token bucket per device token; a push over the
/// rate gets 429 TooManyRequests (docs/apns-behaviour.md §9, TooManyRequests; threshold UNVERIFIED).
///
/// JSON: `{"type": "rateLimit", "perSecond": 10, "burst": 20}`.
public struct FaultRateLimit: Sendable, Hashable {
    /// Sustained rate per device token, requests per second (may be fractional: 0.5 = one
    /// every 2 s).
    public var perSecond: Double
    /// Bucket size: pushes a token may send at once. Default: `perSecond` rounded up, at least 1.
    public var burst: Int?

    public init(perSecond: Double, burst: Int? = nil) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// The bucket size in use.
    public var capacity: Double { Self.capacity(perSecond: perSecond, burst: burst) }

    /// `rate limit 10/s per token (burst 20)`.
    public var summary: String { "rate limit \(Self.rateText(perSecond))/s per token (burst \(Int64(capacity)))" }

    func validate(at path: String) throws(FaultRuleError) {
        try Self.validate(perSecond: perSecond, burst: burst, at: path)
    }

    // The token bucket's parameters, shared with `FaultStreamRateLimit` (per connection instead of
    // per device token).

    /// The bucket size: `burst`, else the rate rounded up (at least 1).
    static func capacity(perSecond: Double, burst: Int?) -> Double {
        burst.map(Double.init) ?? max(1, perSecond.rounded(.up))
    }

    /// `10`, or `2.5` for a fractional rate.
    static func rateText(_ perSecond: Double) -> String {
        perSecond == perSecond.rounded() ? String(Int64(perSecond)) : String(perSecond)
    }

    /// `perSecond` above 0 and at most `FaultLimits.maxPerSecond`, `burst` at least 1.
    static func validate(perSecond: Double, burst: Int?, at path: String) throws(FaultRuleError) {
        guard perSecond.isFinite, perSecond > 0, perSecond <= FaultLimits.maxPerSecond else {
            throw FaultRuleError(
                field: FaultRuleError.join(path, "perSecond"),
                message: "must be above 0 and at most \(Int(FaultLimits.maxPerSecond)), got \(perSecond)")
        }
        if let burst, burst < 1 {
            throw FaultRuleError(field: FaultRuleError.join(path, "burst"), message: "must be at least 1, got \(burst)")
        }
    }

    static let keys = ["perSecond", "burst"]

    init(reading object: FaultObjectReader) throws {
        self.init(
            perSecond: try object.required("perSecond", Double.self, expected: "a number of requests per second"),
            burst: try object.optional("burst", Int.self, expected: "an integer of at least 1"))
        try object.validated { () throws(FaultRuleError) in try validate(at: object.path) }
    }

    func write(into container: inout KeyedEncodingContainer<FaultCodingKey>) throws {
        try container.encode(perSecond, forKey: FaultCodingKey("perSecond"))
        try container.encodeIfPresent(burst, forKey: FaultCodingKey("burst"))
    }
}
