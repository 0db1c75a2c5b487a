/// How a TLS listener treats ALPN (docs/apns-behaviour.md §6, §9: Apple says nothing; pushy and aioapns
/// connect without ALPN, Go and Node clients offer `h2`).
public enum ALPNPolicy: String, Sendable, Equatable, CaseIterable {
    /// Default. `h2` is selected when offered; a connection that offers no ALPN proceeds as
    /// HTTP/2 with prior knowledge.
    case optional
    /// Connections that do not offer `h2` are refused.
    case required
}
