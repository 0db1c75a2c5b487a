import APNsCore

/// One configured APNs auth key: what a provider token's `kid` names (Apple, *Establishing a
/// token-based connection to APNs*; docs/apns-behaviour.md §4). Immutable; a class so that the per-push
/// path passes one reference rather than copying every field.
public final class ProviderKey: Sendable, Hashable {
    /// The key ID, the token header's `kid`. Apple's are 10 characters; not enforced, so tests
    /// may use any name.
    public let keyID: String
    /// The team the key belongs to; a token's `iss` must equal it.
    public let teamID: String
    /// The key that verifies token signatures.
    public let publicKey: ES256PublicKey
    /// The topics the key may push to.
    public let scope: KeyScope
    /// The environments the key is valid for. Team-scoped keys are sandbox- or production-only
    /// today; older keys (and topic-specific ones) may cover both (Apple A3).
    public let environments: Set<APNsEnvironment>
    /// For topic-specific keys: the one related key that may share a connection with this one
    /// (Apple A3). Relatedness holds when either key names the other.
    public let relatedKeyID: String?

    /// A key; `environments` defaults to both (an older dual-environment key, Apple A3).
    public init(
        keyID: String, teamID: String, publicKey: ES256PublicKey, scope: KeyScope,
        environments: Set<APNsEnvironment> = Set(APNsEnvironment.allCases), relatedKeyID: String? = nil
    ) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKey = publicKey
        self.scope = scope
        self.environments = environments
        self.relatedKeyID = relatedKeyID
    }

    /// Keys are equal when every field is.
    public static func == (lhs: ProviderKey, rhs: ProviderKey) -> Bool {
        lhs === rhs
            || (lhs.keyID == rhs.keyID && lhs.teamID == rhs.teamID && lhs.publicKey == rhs.publicKey
                && lhs.scope == rhs.scope && lhs.environments == rhs.environments
                && lhs.relatedKeyID == rhs.relatedKeyID)
    }

    /// Hashes the key ID and public key.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keyID)
        hasher.combine(publicKey)
    }

    /// Whether the key may push to `topic`: team-scoped keys to any topic; topic-specific keys
    /// to a listed topic or a listed topic plus a push-type suffix (`com.x.voip` when `com.x` is
    /// listed; suffixes from `PushType.topicSuffix`, docs/apns-behaviour.md §1.3).
    public func allows(topic: String) -> Bool {
        guard case .topics(let topics) = scope else { return true }
        if topics.contains(topic) { return true }
        guard let suffix = TopicRule.suffixPushType(of: topic)?.topicSuffix else { return false }
        return topics.contains(String(topic.utf8.dropLast(suffix.utf8.count))!)
    }

    /// Whether a connection whose first push used `self` may go on with `other` (Apple A3):
    /// the same key; two team-scoped keys of one team; or two topic-specific keys of one team
    /// when either names the other as its related key. A team-scoped and a topic-specific key
    /// are never related.
    public func isRelated(to other: ProviderKey) -> Bool {
        if keyID == other.keyID { return true }
        guard teamID == other.teamID else { return false }
        switch (scope.isTeamScoped, other.scope.isTeamScoped) {
        case (true, true): return true
        case (false, false): return relatedKeyID == other.keyID || other.relatedKeyID == keyID
        default: return false
        }
    }
}
