/// What one token-authenticated connection remembers between pushes (spec sections 4 and 6):
/// the team and key bound by its first accepted push, the token in use and since when, and the
/// checks already paid for. A value owned by the connection (confined to its worker thread);
/// `TokenAuthenticator.authenticate` is the only writer.
///
/// Because it is a value, a caller that wants binding to happen only on a 200 (rather than when
/// authentication passes) can authenticate against a copy and keep the copy only then.
public struct TokenConnectionState: Sendable {
    /// The team bound by the first accepted push (its `iss`); later pushes must match it.
    public internal(set) var boundTeamID: String?
    /// The key ID bound by the first accepted push; later keys must be related to it (Apple A3).
    public internal(set) var boundKeyID: String?
    /// The bound key when it is configured; `nil` for an unknown key accepted permissively.
    var boundKey: ProviderKey?
    /// When the connection started using its current token, in seconds since the Unix epoch
    /// (the caller's clock, offset included).
    public internal(set) var currentTokenSince: Double?
    /// How many signature verifications this connection has paid for: a connection that reuses
    /// one token verifies it once.
    public internal(set) var verifications: Int = 0
    /// The token in use: the last one accepted.
    var current: CheckedToken?
    /// The last token checked that is not the current one (rejected, or refused by the
    /// 20-minute rule), so a sender retrying it is not verified again.
    var candidate: CheckedToken?
    /// The last topic found inside `scopeKey`'s scope: a connection usually pushes to one topic,
    /// so the set lookups run once.
    var scopeTopic: String?
    var scopeKey: ProviderKey?

    /// The state of a new connection: nothing bound, no token in use.
    public init() {}

    /// Whether a push has been accepted on this connection (team and key are bound).
    public var isBound: Bool { boundTeamID != nil }
}
