/// A parsed provider token (JWT): the fields APNs reads, and what its signature covers
/// (Apple, *Establishing a token-based connection to APNs*; docs/apns-behaviour.md §4).
public struct ProviderToken: Sendable, Hashable {
    /// The header's `kid`: which key signed the token.
    public let keyID: String
    /// The `iss` claim: the team ID.
    public let teamID: String
    /// The `iat` claim in seconds since the Unix epoch (integer, fractional or numeric-string
    /// form, docs/apns-behaviour.md §9).
    public let issuedAt: Double
    /// The signed bytes: the ASCII text `<header>.<claims>` exactly as sent (RFC 7515 section 5.2).
    public let signingInput: [UInt8]
    /// The decoded signature: 64-byte raw `r‖s` (JWS) or DER (docs/apns-behaviour.md §4).
    public let signature: [UInt8]

    /// A token with these fields (`issuedAt` in seconds since the Unix epoch).
    public init(keyID: String, teamID: String, issuedAt: Double, signingInput: [UInt8], signature: [UInt8]) {
        self.keyID = keyID
        self.teamID = teamID
        self.issuedAt = issuedAt
        self.signingInput = signingInput
        self.signature = signature
    }
}
