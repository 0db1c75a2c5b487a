/// The parameters of a `streamRateLimit` action (issue 13, "Per-connection stream-rate limit"):
/// a token bucket per connection; a new stream over `perSecond` gets RST_STREAM
/// ENHANCE_YOUR_CALM (RFC 9113 §5.4.2's code for a peer that opens streams too fast), and once
/// `goawayAfter` streams of the connection have been refused, the next stream over the rate gets
/// GOAWAY ENHANCE_YOUR_CALM instead (last-stream-id below that stream, closed once written).
/// Apple documents no stream rate; the shape is what HTTP/2 servers under load do.
///
/// JSON: `{"type": "streamRateLimit", "perSecond": 50, "burst": 50, "goawayAfter": 10}`.
/// Streams are counted when their request has arrived and reaches the rule.
public struct FaultStreamRateLimit: Sendable, Hashable {
    /// Sustained new streams per second per connection (may be fractional).
    public var perSecond: Double
    /// Bucket size: streams a connection may open at once. Default: `perSecond` rounded up, at least 1.
    public var burst: Int?
    /// Refused streams of one connection after which the next one over the rate gets GOAWAY
    /// ENHANCE_YOUR_CALM; nil: never, every stream over the rate is refused.
    public var goawayAfter: Int?

    public init(perSecond: Double, burst: Int? = nil, goawayAfter: Int? = nil) {
        self.perSecond = perSecond
        self.burst = burst
        self.goawayAfter = goawayAfter
    }

    /// The bucket size in use.
    public var capacity: Double { FaultRateLimit.capacity(perSecond: perSecond, burst: burst) }

    /// `stream rate limit 50/s per connection (burst 50), GOAWAY after 10 refused`.
    public var summary: String {
        var text =
            "stream rate limit \(FaultRateLimit.rateText(perSecond))/s per connection (burst \(Int64(capacity)))"
        if let goawayAfter { text += ", GOAWAY after \(goawayAfter) refused" }
        return text
    }

    func validate(at path: String) throws(FaultRuleError) {
        try FaultRateLimit.validate(perSecond: perSecond, burst: burst, at: path)
        if let goawayAfter, goawayAfter < 0 {
            throw FaultRuleError(
                field: FaultRuleError.join(path, "goawayAfter"), message: "must be 0 or more, got \(goawayAfter)")
        }
    }

    static let keys = ["perSecond", "burst", "goawayAfter"]

    init(reading object: FaultObjectReader) throws {
        self.init(
            perSecond: try object.required("perSecond", Double.self, expected: "a number of streams per second"),
            burst: try object.optional("burst", Int.self, expected: "an integer of at least 1"),
            goawayAfter: try object.optional("goawayAfter", Int.self, expected: "an integer of refused streams"))
        try object.validated { () throws(FaultRuleError) in try validate(at: object.path) }
    }

    func write(into container: inout KeyedEncodingContainer<FaultCodingKey>) throws {
        try container.encode(perSecond, forKey: FaultCodingKey("perSecond"))
        try container.encodeIfPresent(burst, forKey: FaultCodingKey("burst"))
        try container.encodeIfPresent(goawayAfter, forKey: FaultCodingKey("goawayAfter"))
    }
}
