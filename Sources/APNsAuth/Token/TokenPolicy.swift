/// The time rules for provider tokens, in seconds. The defaults are Apple's; tests and the
/// configuration may change them.
public struct TokenPolicy: Sendable, Hashable {
    /// A token whose `iat` is more than this many seconds in the past is 403
    /// `ExpiredProviderToken`. Default 3600 (Apple A3: "no more than one hour"; pushy's mock
    /// rejects when now > iat + 1 h, so exactly 3600 s old still passes).
    public var maximumAge: Double
    /// A token whose `iat` is more than this many seconds in the future is 403
    /// `InvalidProviderToken`. Default 60 (docs/apns-behaviour.md §9; Apple is silent).
    public var allowedFutureSkew: Double
    /// A connection that switches to a different token less than this many seconds after it
    /// started using its previous one gets 429 `TooManyProviderTokenUpdates`. Default 1200,
    /// 20 minutes (Apple A3, A2).
    public var minimumRefreshInterval: Double

    /// Rules with the given limits, all in seconds; the defaults are Apple's.
    public init(maximumAge: Double = 3600, allowedFutureSkew: Double = 60, minimumRefreshInterval: Double = 1200) {
        self.maximumAge = maximumAge
        self.allowedFutureSkew = allowedFutureSkew
        self.minimumRefreshInterval = minimumRefreshInterval
    }

    /// Apple's rules: 3600 s maximum age, 60 s future skew, 1200 s between token changes.
    public static let apple = TokenPolicy()
}
