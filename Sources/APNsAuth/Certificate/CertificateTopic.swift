/// One topic a push certificate lists in extension `1.2.840.113635.100.6.3.6` (Apple A10;
/// docs/apns-behaviour.md §5), with the topic types that follow it (`app`, `voip`, `complication`...).
public struct CertificateTopic: Sendable, Hashable {
    /// The topic: a bundle ID, possibly with a suffix (`com.x.voip`).
    public let topic: String
    /// The types listed for it, in order.
    public let types: [String]

    /// A listed topic and its types.
    public init(topic: String, types: [String]) {
        self.topic = topic
        self.types = types
    }
}
