import APNsCore

/// One token string after the expensive work: parsed, its key looked up, its signature
/// verified. Kept in `TokenConnectionState` so a connection reusing a token pays once; a class
/// so that the per-push path retains one reference instead of copying the parsed token.
final class CheckedToken: Sendable {
    /// The JWT as sent (without `bearer `).
    let jwt: String
    /// The store the key was looked up in; a different store means the check is stale.
    let keys: KeyStore
    /// The parsed token, or why it could not be parsed.
    let parsed: Result<ProviderToken, ProviderTokenError>
    /// The configured key the token's `kid` names, or `nil` when unknown (or unparsed).
    let key: ProviderKey?
    /// Whether `key` verified the signature; `false` when there is no key.
    let signatureValid: Bool

    init(
        jwt: String, keys: KeyStore, parsed: Result<ProviderToken, ProviderTokenError>, key: ProviderKey?,
        signatureValid: Bool
    ) {
        self.jwt = jwt
        self.keys = keys
        self.parsed = parsed
        self.key = key
        self.signatureValid = signatureValid
    }

    /// Whether this check applies to `jwt` against `keys`.
    func matches(_ jwt: Substring, _ keys: KeyStore) -> Bool {
        self.keys === keys && UTF8Bytes.equal(self.jwt, jwt)  // bytes: `==` merges equivalent text
    }
}
