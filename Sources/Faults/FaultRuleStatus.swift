/// A rule as the engine holds it, with its counters (control API listing).
///
/// JSON: the rule's own fields plus `"matched"`, `"fired"`, `"spent"` and, for rules that made
/// connections sick, `"sickConnections"`; for a `probabilityRamp`, `"rampStartedAt"` (epoch milliseconds).
public struct FaultRuleStatus: Sendable, Equatable, Encodable {
    /// The rule, with its assigned `id` (and `match.seed` when the engine picked one).
    public var rule: FaultRule
    /// Requests that met every condition of the rule (including `pass` steps and pushes under
    /// a rate limit).
    public var matched: UInt64
    /// Requests the rule answered with a fault (later streams of a sick connection included).
    public var fired: UInt64
    /// True once the rule can no longer match: its lifetime is over, its `nth` is past, or its
    /// sequence has run out. A spent rule stays listed until removed; a connection it made sick
    /// stays sick.
    public var spent: Bool
    /// The open connections this rule made sick, ascending.
    public var sickConnections: [UInt64]
    /// When the rule's `probabilityRamp` started (the rule was added), milliseconds since the
    /// Unix epoch; nil without a ramp.
    public var rampStartedAt: Int64?

    public init(
        rule: FaultRule, matched: UInt64, fired: UInt64, spent: Bool, sickConnections: [UInt64] = [],
        rampStartedAt: Int64? = nil
    ) {
        self.rule = rule
        self.matched = matched
        self.fired = fired
        self.spent = spent
        self.sickConnections = sickConnections
        self.rampStartedAt = rampStartedAt
    }

    public func encode(to encoder: any Encoder) throws {
        try rule.encode(to: encoder)
        var container = encoder.container(keyedBy: FaultCodingKey.self)
        try container.encode(matched, forKey: FaultCodingKey("matched"))
        try container.encode(fired, forKey: FaultCodingKey("fired"))
        try container.encode(spent, forKey: FaultCodingKey("spent"))
        if !sickConnections.isEmpty { try container.encode(sickConnections, forKey: FaultCodingKey("sickConnections")) }
        try container.encodeIfPresent(rampStartedAt, forKey: FaultCodingKey("rampStartedAt"))
    }
}
