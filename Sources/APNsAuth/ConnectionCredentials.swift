import APNsCore
import HTTPFields

/// The credential check of one APNs connection (docs/apns-behaviour.md §4, §5): its provider-token
/// state or its client certificate, and the `CredentialChecker` the gateway asks for each push.
/// Kept per connection by the server assembly; touched only on the connection's loop thread.
public final class ConnectionCredentials: CredentialChecker {
    /// How credentials are checked on the connection's listener.
    public let mode: AuthMode
    /// The listener's environment.
    public let environment: APNsEnvironment
    private let keys: KeyStore
    private let clock: ServerClock
    /// Provider-token state: bound team and key, current token, verification cache.
    /// Unchecked: touched on the loop thread only, never overlappingly, and per request (the
    /// runtime exclusivity check on each access buys nothing here).
    @exclusivity(unchecked) public private(set) var token = TokenConnectionState()
    /// What the last full token check made of `token`, kept or partly kept by `settle`.
    @exclusivity(unchecked) private var tokenAfter: TokenConnectionState?
    /// The client certificate, when one was presented (mutual TLS).
    /// Unchecked, as `token` (read per push).
    @exclusivity(unchecked) public private(set) var certificate: CertificateIdentity? {
        didSet { storedDefaultTopic = certificate?.defaultTopic }
    }
    /// The certificate's default topic, read per push without copying the whole certificate.
    /// Behind an accessor because another module ignores `@exclusivity(unchecked)` and checks each
    /// access to a stored property at run time.
    public var defaultTopic: String? { storedDefaultTopic }
    @exclusivity(unchecked) private var storedDefaultTopic: String?
    /// Set when the certificate disqualifies the whole connection (untrusted, expired, other
    /// environment): the first request is answered with GOAWAY carrying `reason`; `problem` says
    /// why, for the record.
    public private(set) var certificateRejection: (reason: Reason, problem: String)?

    /// - Parameters:
    ///   - keys: the configured provider keys.
    ///   - clock: the time tokens and certificates are checked against (offset included).
    public init(mode: AuthMode, environment: APNsEnvironment, keys: KeyStore, clock: ServerClock) {
        self.mode = mode
        self.environment = environment
        self.keys = keys
        self.clock = clock
    }

    /// Takes the client certificate presented in the TLS handshake (`der`, and whether it chained
    /// to a configured CA: `verified`, else OpenSSL's `verifyError`) and judges it for the whole
    /// connection (`CertificateAuthorizer.connectionReason`).
    public func adoptCertificate(der: [UInt8], verified: Bool, verifyError: String?) {
        do {
            let identity = try CertificateIdentity(der: der)
            certificate = identity
            if !verified {
                certificateRejection = (.badCertificate, verifyError ?? "not trusted")
            } else if let reason = CertificateAuthorizer.connectionReason(
                identity, environment: environment, nowSeconds: clock.now())
            {
                certificateRejection = (
                    reason,
                    reason == .badCertificateEnvironment
                        ? "certificate is not for the \(environment.rawValue) environment"
                        : "certificate is expired or not yet valid"
                )
            }
        } catch {
            certificateRejection = (.badCertificate, "unreadable certificate: \(error)")
        }
    }

    /// Checks one push: nil under `AuthMode.none`; the certificate's verdict on a certificate
    /// connection; else the provider token in `authorization` (`TokenAuthenticator`), answered
    /// without copying the token state when it changes nothing (`TokenConnectionState.quickOutcome`).
    public func check(_ verdict: ValidationResult, of request: HTTP2Request) -> AuthorizationResult? {
        guard mode != .none else { return nil }
        if let certificate { return authorizeCertificate(certificate, verdict: verdict) }
        var authorization: String?
        // The length first: most names differ in it, and String == is slow to find that. The
        // fields are read in place (a loop over copies retained and released each name).
        request.headers.withUnsafeBufferPointer { fields in
            for index in fields.indices
            where fields[index].name.utf8.count == 13 && fields[index].name == "authorization" {
                authorization = fields[index].value
            }
        }
        // Permissive without a token: nothing to check (`TokenConnectionState.quickOutcome`).
        if authorization == nil && mode == .permissive { return noTokenResult }
        let now = clock.now()
        if let quick = token.quickOutcome(
            authorization: authorization, topic: verdict.topic, environment: environment, mode: mode,
            nowSeconds: now, keys: keys)
        {
            return authorizationResult(for: quick, accepted: token.acceptedToken)
        }
        var after = token
        let outcome = TokenAuthenticator.authenticate(
            authorization: authorization, topic: verdict.topic, environment: environment, mode: mode,
            nowSeconds: now, keys: keys, state: &after)
        tokenAfter = after
        return authorizationResult(for: outcome)
    }

    /// Token state changes only when the push is accepted: the first accepted push binds the
    /// team (Apple, *Establishing a token-based connection to APNs*); a refused push keeps only
    /// the checks it paid for (`TokenConnectionState.keepChecks`). A push answered without a
    /// full check changes nothing.
    public func settle(accepted: Bool) {
        guard let after = tokenAfter else { return }
        tokenAfter = nil
        if accepted { token = after } else { token.keepChecks(of: after) }
    }

    private func authorizeCertificate(_ certificate: CertificateIdentity, verdict: ValidationResult)
        -> AuthorizationResult
    {
        if let rejection = certificateRejection {
            return AuthorizationResult(
                reason: rejection.reason,
                identity: CredentialIdentity(certificate: certificate, verdict: "rejected: \(rejection.problem)"),
                closesConnection: true)
        }
        let result = CertificateAuthorizer.authorize(
            certificate, topic: verdict.topic, pushType: verdict.pushType, environment: environment,
            nowSeconds: clock.now())
        return AuthorizationResult(
            reason: result.reason,
            identity: CredentialIdentity(certificate: certificate, verdict: result.identity.verdict),
            closesConnection: result.closesConnection)
    }

    /// The answer to a push without a provider token under permissive authentication (it is
    /// always `TokenAuthenticator.noToken`), made once per connection.
    private let noTokenResult = AuthorizationResult(
        reason: nil, identity: CredentialIdentity(TokenAuthenticator.noToken.identity))

    /// The last token outcome and the result made of it: a repeated outcome reuses the result.
    @exclusivity(unchecked) private var lastAuthorization: LastAuthorization?

    /// The record's form of a token outcome, reused while the outcome repeats byte for byte.
    /// `accepted`: `TokenConnectionState.acceptedToken` when `outcome` is a repeat of the last
    /// accepted token (`quickOutcome`); the same object means the same outcome, so nothing is
    /// compared.
    func authorizationResult(for outcome: AuthOutcome, accepted: AnyObject? = nil) -> AuthorizationResult {
        if let last = lastAuthorization {
            if let accepted, last.accepted === accepted { return last.result }
            if ConnectionCredentials.same(last.outcome, outcome) {
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
    public var summary: String {
        if let certificate { return "certificate " + certificate.subject }
        if let team = token.boundTeamID { return "token " + (token.boundKeyID ?? "?") + " " + team }
        return "none"
    }
}

extension CredentialIdentity {
    /// The record's view of an APNsAuth identity.
    init(_ identity: AuthIdentity) {
        self.init(
            kind: identity.kind.rawValue, keyID: identity.keyID, teamID: identity.teamID,
            issuedAt: identity.issuedAt, subject: identity.subject, verdict: identity.verdict)
    }

    /// A certificate connection's identity: subject and covered topics.
    init(certificate: CertificateIdentity, verdict: String) {
        self.init(
            kind: "certificate", subject: certificate.subject, topics: certificate.coveredTopics.sorted(),
            verdict: verdict)
    }
}
