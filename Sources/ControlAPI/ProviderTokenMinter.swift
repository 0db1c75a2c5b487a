/// Signs test provider tokens for `POST /v1/provider-tokens` (docs/console.md §6): the
/// server's implementation signs with its test key (`ProviderTestKey`, registered among the
/// configured keys, so the tokens pass the listeners' checks).
public protocol ProviderTokenMinter: Sendable {
    /// The tokens' `kid`: the key's ID.
    var keyID: String { get }
    /// The tokens' `iss`: the key's team.
    var teamID: String { get }
    /// A signed token (compact JWS, ES256) issued at `issuedAt` (whole seconds since the Unix
    /// epoch); nil when signing failed.
    func token(issuedAt: Int64) -> String?
}
