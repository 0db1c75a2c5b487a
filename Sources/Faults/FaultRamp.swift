/// A degradation ramp (issue 13; MockServer's `degradationRampMillis`): a match `probability`
/// that rises (or falls) linearly from `from` to `to` over `durationMs` milliseconds, counted
/// from when the rule is added, and stays at `to` afterwards; drawn like `probability`, from
/// the match's `seed`. A sender's circuit breaker can be watched tripping as failures grow.
///
/// JSON (in `match`, instead of `probability`): `{"probabilityRamp": {"from": 0, "to": 0.5,
/// "durationMs": 60000}, "seed": 7}`. `GET /v1/faults` shows the rule's `rampStartedAt`.
public struct FaultRamp: Sendable, Hashable, Codable {
    /// The chance, 0 to 1, at the start.
    public var from: Double
    /// The chance, 0 to 1, after `durationMs`.
    public var to: Double
    /// Milliseconds from `from` to `to`, at least 1.
    public var durationMs: Int64

    public init(from: Double, to: Double, durationMs: Int64) {
        self.from = from
        self.to = to
        self.durationMs = durationMs
    }

    /// The chance `elapsed` milliseconds after the start (before it: `from`).
    public func probability(elapsedMilliseconds elapsed: Int64) -> Double {
        let progress = min(1, max(0, Double(elapsed) / Double(durationMs)))
        return from + (to - from) * progress
    }

    func validate(at path: String) throws(FaultRuleError) {
        for (key, value) in [("from", from), ("to", to)] where !(value >= 0 && value <= 1) {
            throw FaultRuleError(field: FaultRuleError.join(path, key), message: "must be within 0 and 1, got \(value)")
        }
        guard (1...FaultLimits.maxMilliseconds).contains(durationMs) else {
            throw FaultRuleError(
                field: FaultRuleError.join(path, "durationMs"),
                message: "must be 1 to \(FaultLimits.maxMilliseconds) milliseconds, got \(durationMs)")
        }
    }

    public init(from decoder: any Decoder) throws {
        let object = try FaultObjectReader(decoder, keys: ["from", "to", "durationMs"])
        self.init(
            from: try object.required("from", Double.self, expected: "a number within 0 and 1"),
            to: try object.required("to", Double.self, expected: "a number within 0 and 1"),
            durationMs: try object.required("durationMs", Int64.self, expected: "an integer of milliseconds"))
        try object.validated { () throws(FaultRuleError) in try validate(at: object.path) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FaultCodingKey.self)
        try container.encode(from, forKey: FaultCodingKey("from"))
        try container.encode(to, forKey: FaultCodingKey("to"))
        try container.encode(durationMs, forKey: FaultCodingKey("durationMs"))
    }
}
