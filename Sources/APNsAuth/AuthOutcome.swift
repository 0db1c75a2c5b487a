import APNsCore

/// What authenticating one push concluded: the APNs reason to answer, if any, and the identity
/// to record. Produced by `TokenAuthenticator`.
public struct AuthOutcome: Sendable, Hashable {
    /// The rejection reason (403 or 429, docs/apns-behaviour.md §2, §4), or `nil` when authentication passed.
    public var reason: Reason?
    /// Who sent the push and the verdict, for the delivery record.
    public var identity: AuthIdentity

    /// Whether authentication passed.
    public var isAccepted: Bool { reason == nil }

    /// An outcome answering `reason` (`nil`: accepted) for `identity`.
    public init(reason: Reason?, identity: AuthIdentity) {
        self.reason = reason
        self.identity = identity
    }
}
