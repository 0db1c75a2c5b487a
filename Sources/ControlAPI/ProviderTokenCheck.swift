import APNsCore

/// What checking a provider token concluded (`ProviderTokenChecker`): the listener's verdict,
/// the token's parts, and whether its key is configured.
public struct ProviderTokenCheck: Sendable, Equatable {
    /// The listener the token was checked for, and its environment.
    public var listener: String
    public var environment: APNsEnvironment
    /// The APNs reason a push with the token would get (403 `InvalidProviderToken`,
    /// `ExpiredProviderToken`, …), nil when it passes.
    public var reason: Reason?
    /// The verdict in words, as delivery records' `identity.verdict`.
    public var verdict: String
    /// The token's `kid`, `iss` and `iat` (seconds since the epoch), when it parsed.
    public var keyID: String?
    public var teamID: String?
    public var issuedAt: Double?
    /// True when `keyID` names a configured key (`--keys`).
    public var keyConfigured: Bool
    /// The listener's time rules, in seconds: the oldest `iat` accepted (3600) and the shortest
    /// interval between token updates on a connection (1200, the 20-minute rule).
    public var maximumAgeSeconds: Double
    public var minimumRefreshSeconds: Double

    /// Creates a check.
    public init(
        listener: String, environment: APNsEnvironment, reason: Reason?, verdict: String, keyID: String?,
        teamID: String?, issuedAt: Double?, keyConfigured: Bool, maximumAgeSeconds: Double,
        minimumRefreshSeconds: Double
    ) {
        self.maximumAgeSeconds = maximumAgeSeconds
        self.minimumRefreshSeconds = minimumRefreshSeconds
        self.listener = listener
        self.environment = environment
        self.reason = reason
        self.verdict = verdict
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
        self.keyConfigured = keyConfigured
    }
}
