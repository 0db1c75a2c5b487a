import APNsCore
import Broadcast
import HTTPFields

/// The credential check of a channel-management or broadcast request: the connection's own
/// (`ConnectionCredentials`, as for `/3/device`: provider token or client certificate), asked
/// about the path's bundle ID as the topic (docs/broadcast.md §3, "Order of checks", step 2).
///
/// Credentials that do not cover the bundle ID get 403 `TopicMismatch` (Apple, *Handling error
/// responses from APNs*: "the bundle IDs in the token or certificate don't include the topic in
/// the path"): a certificate that does not list it (the device-push API's `TopicDisallowed`),
/// a token whose key's scope leaves it out (the device-push API's `InvalidProviderToken`, told
/// apart from a bad token by asking again without a topic).
enum BroadcastCredentialCheck {
    /// The outcome: the reason (nil when authorized), whether APNs ends the connection for it
    /// (a rejected certificate: GOAWAY, docs/field-cases.md C2), and who sent it.
    struct Outcome {
        var reason: BroadcastReason?
        var closesConnection = false
        var identity: CredentialIdentity?
    }

    static func check<Credentials: CredentialChecker>(
        _ credentials: Credentials, request: HTTP2Request, bundleID: String
    ) -> Outcome {
        guard let result = credentials.check(ValidationResult(topic: bundleID), of: request) else { return Outcome() }
        guard let reason = result.reason else { return Outcome(identity: result.identity) }
        var mapped = BroadcastReason(reason) ?? .invalidProviderToken
        if reason == .topicDisallowed {
            mapped = .topicMismatch
        } else if reason == .invalidProviderToken,
            let again = credentials.check(ValidationResult(topic: nil), of: request), again.reason == nil
        {
            mapped = .topicMismatch
        }
        return Outcome(reason: mapped, closesConnection: result.closesConnection, identity: result.identity)
    }
}
