import Foundation

/// Mints provider tokens as Apple asks senders to (Apple, *Establishing a token-based
/// connection to APNs*): header `{"alg":"ES256","kid":…}`, claims `{"iss":…,"iat":…}`, signed
/// with the `.p8` key, signature in the JWS raw `r‖s` encoding. For the CLI (`mock-apns jwt`,
/// `mock-apns send`) and tests.
public struct ProviderTokenSigner: Sendable {
    /// The signing key.
    public let key: ES256PrivateKey
    /// The `kid` header: the key's ID.
    public let keyID: String
    /// The `iss` claim: the team ID.
    public let teamID: String

    /// A signer for tokens with `kid` = `keyID` and `iss` = `teamID`.
    public init(key: ES256PrivateKey, keyID: String, teamID: String) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Loads the key from a `.p8` file.
    public init(p8Path: String, keyID: String, teamID: String) throws {
        self.init(key: try ES256PrivateKey(contentsOfFile: p8Path), keyID: keyID, teamID: teamID)
    }

    /// A signed token (compact JWS) issued at `issuedAt`, in whole seconds since the Unix epoch.
    public func token(issuedAt: Int64) throws -> String {
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "kid": keyID], options: [.sortedKeys])
        let claims = try JSONSerialization.data(
            withJSONObject: ["iss": teamID, "iat": issuedAt] as [String: Any],
            options: [.sortedKeys])
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        guard let signature = ES256.sign(message: Array(signingInput.utf8), key: key) else {
            throw AuthMaterialError.openSSL("cannot sign the provider token")
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The `authorization` header value for a token issued at `issuedAt` (seconds since the
    /// Unix epoch): `bearer <JWT>` (Apple A1).
    public func authorization(issuedAt: Int64) throws -> String {
        "bearer " + (try token(issuedAt: issuedAt))
    }
}
