/// How strictly a token-authenticated listener checks provider tokens (docs/apns-behaviour.md §4, §9).
///
/// Raw values are the configuration spellings (`"none"`, `"permissive"`, `"strict"`).
public enum AuthMode: String, Sendable, Hashable, CaseIterable, Codable {
    /// No provider-token checks at all: every push passes authentication.
    case none
    /// The default. A push without a token passes (flagged `no-token`); a token that is sent
    /// must be well-formed, not expired (`iat` at most 3600 s old, Apple A3) and not from the
    /// future (`iat` at most 60 s ahead, docs/apns-behaviour.md §9). Its signature and scope are checked
    /// when its key is configured; a token signed by an unknown key passes, flagged
    /// `unknown-key-accepted`.
    case permissive
    /// Apple's behaviour: every push on a connection without a trusted client certificate
    /// carries a valid token signed by a configured key (docs/apns-behaviour.md §4).
    case strict
}
