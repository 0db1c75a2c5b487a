import APNsCore

/// What one token-authenticated connection remembers between pushes (docs/apns-behaviour.md §4, §6):
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
    /// The last push whose token was accepted, for the repeat fast path (`AcceptedToken`).
    var accepted: AcceptedToken?

    /// The object behind `quickOutcome`'s answers for a repeated token: while it is the same
    /// object (`===`), those answers are the same outcome, so a caller may reuse what it made of
    /// one. Nil before a push is accepted. Hold it to compare it: a freed object's address may
    /// be reused.
    public var acceptedToken: AnyObject? { accepted }
    /// Pushes answered by that fast path: the same header again, within the token's lifetime and
    /// scope.
    public internal(set) var repeatsAnswered: Int = 0

    /// The state of a new connection: nothing bound, no token in use.
    public init() {}

    /// Whether a push has been accepted on this connection (team and key are bound).
    public var isBound: Bool { boundTeamID != nil }

    /// Takes the checks `other` paid for, `other` being a copy of this state that authenticated a
    /// push the caller then did not accept (rejected by authentication or by a later check): a
    /// token it verified is not verified again when it comes back, while the bound team and key
    /// and the token in use stay as they are (they change only on acceptance, Apple A3).
    /// Without this a sender retrying a rejected token (expired, say) paid one ES256
    /// verification per push.
    public mutating func keepChecks(of other: TokenConnectionState) {
        verifications = other.verifications
        if let checked = other.current, checked !== current {
            candidate = checked  // authentication accepted it, the push was refused for another reason
        } else {
            candidate = other.candidate
        }
    }

    /// What `TokenAuthenticator.authenticate` answers a push that changes no token state: one
    /// without `authorization` in permissive mode, or one that repeats the `authorization` header
    /// of the last accepted push (`AcceptedToken`) and passes the checks that depend on the push
    /// itself (token age, topic scope). Nil when `authenticate` has to decide. A caller that
    /// keeps the state only on acceptance can ask this in place first and skip copying it (it is
    /// `mutating` only to count repeats in `repeatsAnswered`). Ask only where `authenticate` would
    /// reach its token checks (mode not `none`, no trusted certificate). Parameters as for
    /// `authenticate`.
    public mutating func quickOutcome(
        authorization: String?, topic: String?, environment: APNsEnvironment, mode: AuthMode,
        nowSeconds: Double, keys: KeyStore, policy: TokenPolicy = .apple
    ) -> AuthOutcome? {
        if authorization == nil && mode == .permissive { return TokenAuthenticator.noToken }
        guard let accepted, let authorization,
            accepted.repeats(authorization, keys: keys, mode: mode, environment: environment)
        else { return nil }
        let age = nowSeconds - accepted.issuedAt
        guard age <= policy.maximumAge && -age <= policy.allowedFutureSkew else { return nil }
        guard topic == nil || accepted.key == nil || (scopeKey === accepted.key && scopeTopic == topic) else {
            return nil
        }
        repeatsAnswered += 1
        return accepted.outcome
    }
}
