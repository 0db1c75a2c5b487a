/// How a listener checks provider authentication: provider tokens (JWT) and client
/// certificates (docs/apns-behaviour.md §4, §9). Raw values are the configuration spellings; the
/// server maps the setting onto its authenticator.
public enum AuthModeSetting: String, Sendable, Equatable, CaseIterable {
    /// No credential checks at all: every push passes authentication.
    case none
    /// Default. A push without a credential passes. A provider token that is sent must be
    /// well-formed, unexpired and not from the future; its signature is checked when its key
    /// is configured (`Configuration.keysManifestPath`), and a token signed by an unknown key
    /// is accepted and flagged in the delivery record.
    case permissive
    /// Apple's behaviour: every push needs a valid provider token signed by a configured key,
    /// or a connection authenticated by a trusted client certificate
    /// (`ListenerConfiguration.clientCAPaths`).
    case strict
}
