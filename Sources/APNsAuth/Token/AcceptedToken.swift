import APNsCore

/// The connection's last push whose provider token passed authentication: the header exactly as
/// sent and everything the outcome depended on. A push repeating that header, under the same
/// keys, mode and environment, can only be answered the same way except for what depends on
/// the push itself: the time (token age), and the topic when it is outside the cached scope.
/// `TokenAuthenticator` checks those two and returns `outcome`, skipping the parse, the cache
/// lookups and the rebuilding of the identity. A class, so that reading it from the state costs
/// one reference count rather than one per field.
final class AcceptedToken: Sendable {
    /// The `authorization` header value as sent.
    let authorization: String
    let keys: KeyStore
    /// The configured key that verified the token; `nil` for an unknown key accepted permissively.
    let key: ProviderKey?
    let mode: AuthMode
    let environment: APNsEnvironment
    /// The token's `iat`, seconds since the Unix epoch.
    let issuedAt: Double
    /// What the push was answered.
    let outcome: AuthOutcome

    init(
        authorization: String, keys: KeyStore, key: ProviderKey?, mode: AuthMode, environment: APNsEnvironment,
        issuedAt: Double, outcome: AuthOutcome
    ) {
        self.authorization = authorization
        self.keys = keys
        self.key = key
        self.mode = mode
        self.environment = environment
        self.issuedAt = issuedAt
        self.outcome = outcome
    }

    /// Whether a push with `authorization`, checked with these settings, repeats this one.
    func repeats(_ authorization: String, keys: KeyStore, mode: AuthMode, environment: APNsEnvironment) -> Bool {
        self.keys === keys && self.mode == mode && self.environment == environment
            && UTF8Bytes.equal(self.authorization, authorization)  // bytes: `==` merges equivalent text
    }
}
