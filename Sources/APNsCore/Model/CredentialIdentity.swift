/// Who sent a push, as far as authentication could tell, for the delivery record: the kind of
/// credential, its public identifiers and the verdict. Never a token's signature or key material.
public struct CredentialIdentity: Sendable, Equatable, Encodable {
    /// `none` (not checked, or no credential in permissive mode), `token` or `certificate`.
    public var kind: String
    /// The provider token's `kid` (Key ID) and `iss` (Team ID), when a token was parsed.
    public var keyId: String?
    public var teamId: String?
    /// The token's `iat`, seconds since the Unix epoch.
    public var issuedAt: Double?
    /// The client certificate's subject (RFC 2253) and the topics it covers.
    public var subject: String?
    public var topics: [String]?
    /// What authentication concluded, e.g. `verified`, `unknown-key-accepted`, `rejected: bad signature`.
    public var verdict: String

    public init(kind: String, keyId: String? = nil, teamId: String? = nil, issuedAt: Double? = nil,
                subject: String? = nil, topics: [String]? = nil, verdict: String) {
        self.kind = kind
        self.keyId = keyId
        self.teamId = teamId
        self.issuedAt = issuedAt
        self.subject = subject
        self.topics = topics
        self.verdict = verdict
    }

    private enum CodingKeys: String, CodingKey { case kind, keyId, teamId, issuedAt, subject, topics, verdict }

    /// Every key present, `null` when absent, like the rest of the record's JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(keyId, forKey: .keyId)
        try container.encode(teamId, forKey: .teamId)
        try container.encode(issuedAt, forKey: .issuedAt)
        try container.encode(subject, forKey: .subject)
        try container.encode(topics, forKey: .topics)
        try container.encode(verdict, forKey: .verdict)
    }
}

/// What the authentication step concluded for one push: a reason when it rejects, and the
/// identity to record either way.
public struct AuthorizationResult: Sendable, Equatable {
    /// The rejection (403 for credentials, 429 TooManyProviderTokenUpdates, or a certificate's
    /// topic reason), or nil when authentication lets the push through.
    public var reason: Reason?
    /// Who sent it.
    public var identity: CredentialIdentity
    /// True when APNs ends the connection for this reason instead of answering the stream
    /// (GOAWAY for BadCertificate and BadCertificateEnvironment: spec section 5, cases C2).
    public var closesConnection: Bool

    public init(reason: Reason?, identity: CredentialIdentity, closesConnection: Bool = false) {
        self.reason = reason
        self.identity = identity
        self.closesConnection = closesConnection
    }
}
