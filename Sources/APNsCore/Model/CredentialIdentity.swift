/// Who sent a push, as far as authentication could tell, for the delivery record: the kind of
/// credential, its public identifiers and the verdict. Never a token's signature or key material.
public struct CredentialIdentity: Sendable, Equatable, Encodable {
    /// The fields, in one copy-on-write box: an identity is copied several times per push (the
    /// authorization result, the record, the connection's memo), and a copy then costs one
    /// reference count instead of one per string.
    private var storage: Storage

    /// `none` (not checked, or no credential in permissive mode), `token` or `certificate`.
    public var kind: String {
        get { storage.kind }
        _modify {
            unique()
            yield &storage.kind
        }
    }
    /// The provider token's `kid` (Key ID) and `iss` (Team ID), when a token was parsed.
    public var keyID: String? {
        get { storage.keyID }
        _modify {
            unique()
            yield &storage.keyID
        }
    }
    public var teamID: String? {
        get { storage.teamID }
        _modify {
            unique()
            yield &storage.teamID
        }
    }
    /// The token's `iat`, seconds since the Unix epoch.
    public var issuedAt: Double? {
        get { storage.issuedAt }
        _modify {
            unique()
            yield &storage.issuedAt
        }
    }
    /// The client certificate's subject (RFC 2253) and the topics it covers.
    public var subject: String? {
        get { storage.subject }
        _modify {
            unique()
            yield &storage.subject
        }
    }
    public var topics: [String]? {
        get { storage.topics }
        _modify {
            unique()
            yield &storage.topics
        }
    }
    /// What authentication concluded, e.g. `verified`, `unknown-key-accepted`, `rejected: bad signature`.
    public var verdict: String {
        get { storage.verdict }
        _modify {
            unique()
            yield &storage.verdict
        }
    }

    public init(
        kind: String, keyID: String? = nil, teamID: String? = nil, issuedAt: Double? = nil,
        subject: String? = nil, topics: [String]? = nil, verdict: String
    ) {
        storage = Storage(
            kind: kind, keyID: keyID, teamID: teamID, issuedAt: issuedAt, subject: subject, topics: topics,
            verdict: verdict)
    }

    /// True when `self` and `other` share their fields' storage: copies of one identity, so
    /// equal without looking at the fields (the byte comparisons on the request path start here).
    public func isSameInstance(as other: CredentialIdentity) -> Bool { storage === other.storage }

    public static func == (a: CredentialIdentity, b: CredentialIdentity) -> Bool {
        a.storage === b.storage
            || (a.kind == b.kind && a.keyID == b.keyID && a.teamID == b.teamID
                && a.issuedAt == b.issuedAt && a.subject == b.subject && a.topics == b.topics && a.verdict == b.verdict)
    }

    /// Copies the box before a write unless this identity is its only owner.
    private mutating func unique() {
        if !isKnownUniquelyReferenced(&storage) {
            storage = Storage(
                kind: kind, keyID: keyID, teamID: teamID, issuedAt: issuedAt, subject: subject,
                topics: topics, verdict: verdict)
        }
    }

    /// Mutated only through an identity that owns it alone (`unique`), so sharing it between
    /// threads is safe, and no access can overlap a write: the fields skip dynamic exclusivity
    /// checks.
    private final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) var kind: String
        @exclusivity(unchecked) var keyID: String?
        @exclusivity(unchecked) var teamID: String?
        @exclusivity(unchecked) var issuedAt: Double?
        @exclusivity(unchecked) var subject: String?
        @exclusivity(unchecked) var topics: [String]?
        @exclusivity(unchecked) var verdict: String

        init(
            kind: String, keyID: String?, teamID: String?, issuedAt: Double?, subject: String?, topics: [String]?,
            verdict: String
        ) {
            self.kind = kind
            self.keyID = keyID
            self.teamID = teamID
            self.issuedAt = issuedAt
            self.subject = subject
            self.topics = topics
            self.verdict = verdict
        }
    }

    private enum CodingKeys: String, CodingKey {
        case kind, issuedAt, subject, topics, verdict
        case keyID = "keyId"
        case teamID = "teamId"
    }

    /// Every key present, `null` when absent, like the rest of the record's JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(keyID, forKey: .keyID)
        try container.encode(teamID, forKey: .teamID)
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
    /// (GOAWAY for BadCertificate and BadCertificateEnvironment: docs/apns-behaviour.md §5, docs/field-cases.md C2).
    public var closesConnection: Bool

    public init(reason: Reason?, identity: CredentialIdentity, closesConnection: Bool = false) {
        self.reason = reason
        self.identity = identity
        self.closesConnection = closesConnection
    }
}
