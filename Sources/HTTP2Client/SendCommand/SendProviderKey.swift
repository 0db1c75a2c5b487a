/// `--key FILE --key-id ID --team-id ID`: the APNs auth key `mock-apns send` signs a provider
/// token with.
///
/// HTTP2Client knows no JWT (it must not depend on APNsAuth), so it only carries the request;
/// APNsTools' `SendWithKeyCommand` signs it into `SendOptions.authorization`.
public struct SendProviderKey: Sendable, Equatable {
    /// The `.p8` file, as given.
    public var path: String
    /// The token's `kid` header.
    public var keyID: String
    /// The token's `iss` claim.
    public var teamID: String

    /// A key request for `path` with `kid` = `keyID` and `iss` = `teamID`.
    public init(path: String, keyID: String, teamID: String) {
        self.path = path
        self.keyID = keyID
        self.teamID = teamID
    }
}
