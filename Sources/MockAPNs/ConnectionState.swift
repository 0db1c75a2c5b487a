import APNsAuth
import APNsCore
import Gateway

/// What MockAPNs keeps per connection, in `HTTP2Connection.context`; touched only on the
/// connection's loop thread.
final class ConnectionState {
    /// The listener the connection arrived on.
    let listener: APNsRequestHandler.Listener
    /// The connection as the gateway and its records name it; made once, not per push.
    let info: ConnectionInfo
    /// True while MAX_CONCURRENT_STREAMS is lowered to 1 (`apple-observed` profile).
    var streamsLowered = false
    /// Provider-token state: bound team and key, current token, verification cache.
    /// Unchecked: touched on the loop thread only, never overlappingly, and per request (the
    /// runtime exclusivity check is about 80 instructions).
    @exclusivity(unchecked) var token = TokenConnectionState()
    /// The client certificate, when one was presented (mutual TLS).
    var certificate: CertificateIdentity? {
        didSet { defaultTopic = certificate?.defaultTopic }
    }
    /// The certificate's default topic, read per push without copying the whole certificate.
    private(set) var defaultTopic: String?
    /// Set when the certificate disqualifies the whole connection (untrusted, expired, other
    /// environment): the first request is answered with GOAWAY carrying `reason`; `problem` says
    /// why, for the record.
    var certificateRejection: (reason: Reason, problem: String)?
    /// The previous request: a repeated payload is not parsed again, a repeated token not redacted again.
    let memo = RequestMemo()

    init(listener: APNsRequestHandler.Listener, info: ConnectionInfo) {
        self.listener = listener
        self.info = info
    }

    /// The answer to a push without a provider token under permissive authentication (it is
    /// always `TokenAuthenticator.noToken`), made once per connection.
    lazy var noTokenResult = AuthorizationResult(
        reason: nil, identity: CredentialIdentity(TokenAuthenticator.noToken.identity))

    /// The last token outcome and the result made of it: a repeated outcome reuses the result.
    private var lastAuthorization: LastAuthorization?

    /// The record's form of a token outcome, reused while the outcome repeats byte for byte.
    /// `accepted`: `TokenConnectionState.acceptedToken` when `outcome` is a repeat of the last
    /// accepted token (`quickOutcome`); the same object means the same outcome, so nothing is
    /// compared.
    func authorizationResult(for outcome: AuthOutcome, accepted: AnyObject? = nil) -> AuthorizationResult {
        if let last = lastAuthorization {
            if let accepted, last.accepted === accepted { return last.result }
            if ConnectionState.same(last.outcome, outcome) {
                // A newly accepted token recorded alike: remember its object for the next repeat.
                if accepted != nil {
                    lastAuthorization = LastAuthorization(outcome: outcome, result: last.result, accepted: accepted)
                }
                return last.result
            }
        }
        let result = AuthorizationResult(reason: outcome.reason, identity: CredentialIdentity(outcome.identity))
        lastAuthorization = LastAuthorization(outcome: outcome, result: result, accepted: accepted)
        return result
    }

    /// Whether two outcomes would be recorded alike. Not `==`: it takes canonically equivalent
    /// text (`é` precomposed and decomposed, `K` and the Kelvin sign) and `0.0` and `-0.0` as
    /// equal, so a token whose `kid` or `iss` differs from the previous one only so would be
    /// recorded with the previous one's.
    private static func same(_ a: AuthOutcome, _ b: AuthOutcome) -> Bool {
        let x = a.identity, y = b.identity
        return a.reason == b.reason && x.kind == y.kind && x.issuedAt?.bitPattern == y.issuedAt?.bitPattern
            && UTF8Bytes.equal(x.keyID, y.keyID) && UTF8Bytes.equal(x.teamID, y.teamID)
            && UTF8Bytes.equal(x.subject, y.subject)
            && UTF8Bytes.equal(x.verdict, y.verdict)
    }

    /// A class, so that looking at it costs one reference count, not one per string in it.
    private final class LastAuthorization {
        let outcome: AuthOutcome
        let result: AuthorizationResult
        /// The accepted token `outcome` came from, when it was a repeat of it (held, so that its
        /// address cannot be reused by another).
        let accepted: AnyObject?
        init(outcome: AuthOutcome, result: AuthorizationResult, accepted: AnyObject?) {
            self.outcome = outcome
            self.result = result
            self.accepted = accepted
        }
    }

    /// The connection's identity for `GET /v1/connections`: `certificate <subject>`,
    /// `token <key id> <team id>` once a push was accepted, or `none`.
    var authSummary: String {
        if let certificate { return "certificate " + certificate.subject }
        if let team = token.boundTeamID { return "token " + (token.boundKeyID ?? "?") + " " + team }
        return "none"
    }
}
