/// What a listener does to a connection idle for `idleTimeoutSeconds` (docs/apns-behaviour.md §9).
public enum IdleAction: String, Sendable, Equatable, CaseIterable {
    /// Default, as observed: APNs drops idle connections without a GOAWAY, and the sender finds
    /// out at its next write (a TCP reset).
    case reset
    /// GOAWAY NO_ERROR with `{"reason":"IdleTimeout"}`, then close.
    case goaway
    /// Answer nothing more, the socket kept open (a half-open connection as the sender sees it;
    /// `HTTP2Connection.blackhole`, issue 13).
    case blackhole
}
