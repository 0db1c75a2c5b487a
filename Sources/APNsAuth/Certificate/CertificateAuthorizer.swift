import APNsCore

/// Decides what a push certificate allows (Apple A1, A4, A10; docs/apns-behaviour.md §5). Pure: the
/// certificate's chain was verified by TLS; this reads only the parsed identity.
public enum CertificateAuthorizer {
    /// The connection-level verdict, for the TLS layer right after the handshake and for
    /// `authorize`: 403 `BadCertificate` outside the validity period, 403
    /// `BadCertificateEnvironment` when the certificate is not for `environment` (Apple A2),
    /// else `nil`.
    /// - Parameter nowSeconds: the current time, seconds since the Unix epoch (clock offset applied).
    public static func connectionReason(
        _ identity: CertificateIdentity, environment: APNsEnvironment,
        nowSeconds: Double
    ) -> Reason? {
        if !identity.isValid(atSeconds: nowSeconds) { return .badCertificate }
        if !identity.environments.contains(environment) { return .badCertificateEnvironment }
        return nil
    }

    /// Authorizes one push. Checks, in order:
    /// 1. `connectionReason` (`BadCertificate`, `BadCertificateEnvironment`: the transport answers
    ///    with GOAWAY, see `CertificateAuthorization.closesConnection`);
    /// 2. `apns-push-type: location` → `TopicDisallowed`. Location pushes need token auth (Apple
    ///    A1); the reason APNs gives is UNVERIFIED (docs/apns-behaviour.md §5). Decision: the reason a topic
    ///    the certificate does not allow gets, since a `.location-query` topic is never one a
    ///    certificate grants;
    /// 3. no `apns-topic`: the certificate's topic when it covers exactly one, else 400
    ///    `MissingTopic` (Apple A1, A10);
    /// 4. a topic the certificate does not cover → `uncoveredTopicReason`.
    ///
    /// - Parameters:
    ///   - topic: `apns-topic`, `nil` when absent.
    ///   - pushType: the push type in use (sent or inferred), `nil` when unknown.
    ///   - environment: the listener's environment.
    ///   - nowSeconds: the current time, seconds since the Unix epoch (clock offset applied).
    ///   - uncoveredTopicReason: Decision: 400 `TopicDisallowed` by default, Apple's reason for
    ///     "pushing to this topic is not allowed" (A2). pushy's mock answers `BadTopic`
    ///     (docs/apns-behaviour.md §5); pass `.badTopic` to match it.
    public static func authorize(
        _ identity: CertificateIdentity, topic: String?, pushType: PushType?,
        environment: APNsEnvironment, nowSeconds: Double,
        uncoveredTopicReason: Reason = .topicDisallowed
    ) -> CertificateAuthorization {
        func outcome(_ topic: String?, _ reason: Reason?, _ verdict: String) -> CertificateAuthorization {
            CertificateAuthorization(
                topic: topic, reason: reason,
                identity: AuthIdentity(kind: .certificate, subject: identity.subject, verdict: verdict))
        }
        switch connectionReason(identity, environment: environment, nowSeconds: nowSeconds) {
        case .badCertificate?:
            return outcome(topic, .badCertificate, "rejected: certificate is outside its validity period")
        case .badCertificateEnvironment?:
            return outcome(
                topic, .badCertificateEnvironment, "rejected: certificate is not for \(environment.rawValue)")
        default:
            break
        }
        if pushType == .location {
            return outcome(topic, .topicDisallowed, "rejected: location pushes need token authentication")
        }
        guard let topic else {
            guard let only = identity.defaultTopic else {
                return outcome(nil, .missingTopic, "rejected: no apns-topic and the certificate covers several topics")
            }
            return outcome(only, nil, "authorized")
        }
        guard identity.covers(topic: topic) else {
            return outcome(topic, uncoveredTopicReason, "rejected: topic \(topic) is not in the certificate")
        }
        return outcome(topic, nil, "authorized")
    }
}
