import APNsCore

/// What `CertificateAuthorizer` concluded for one push on a certificate connection.
public struct CertificateAuthorization: Sendable, Hashable {
    /// The topic to use: `apns-topic` as sent, or the certificate's default topic when omitted.
    public var topic: String?
    /// The rejection reason, or `nil` when the certificate allows the push.
    public var reason: Reason?
    /// Who sent the push and the verdict, for the delivery record.
    public var identity: AuthIdentity

    /// Whether APNs ends the connection for this reason: `BadCertificate` and
    /// `BadCertificateEnvironment` are answered with GOAWAY `{"reason":…}` and a close
    /// (docs/apns-behaviour.md §5, §6; docs/field-cases.md C2), not with a stream response.
    public var closesConnection: Bool {
        reason == .badCertificate || reason == .badCertificateEnvironment
    }

    /// A verdict for `topic` answering `reason` (`nil`: allowed).
    public init(topic: String?, reason: Reason?, identity: AuthIdentity) {
        self.topic = topic
        self.reason = reason
        self.identity = identity
    }
}
