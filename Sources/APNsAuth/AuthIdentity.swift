/// Who authenticated a push and what the authentication concluded, for the delivery record.
/// Never holds a token's signature or any key material.
public struct AuthIdentity: Sendable, Hashable {
    /// How the push was authenticated.
    public enum Kind: String, Sendable, Hashable {
        /// Not checked (`AuthMode.none`), or no credential was presented (permissive mode).
        case none
        /// A JWT provider token (Apple A3).
        case token
        /// A TLS client certificate (Apple A4).
        case certificate
    }

    /// How the push was authenticated.
    public var kind: Kind
    /// The token's `kid` header, when a token was parsed.
    public var keyID: String?
    /// The token's `iss` claim (the team ID), when a token was parsed.
    public var teamID: String?
    /// The token's `iat` claim in seconds since the Unix epoch, when a token was parsed.
    public var issuedAt: Double?
    /// The client certificate's subject in RFC 2253 form, for certificate connections.
    public var subject: String?
    /// The conclusion in words: `verified`, `unknown-key-accepted`, `no-token`, `unchecked`,
    /// `certificate-authenticated`, `authorized`, or `rejected: <why>`.
    public var verdict: String

    /// An identity; `issuedAt` in seconds since the Unix epoch.
    public init(
        kind: Kind, keyID: String? = nil, teamID: String? = nil, issuedAt: Double? = nil,
        subject: String? = nil, verdict: String
    ) {
        self.kind = kind
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
        self.subject = subject
        self.verdict = verdict
    }
}
