/// The key the control API signs test provider tokens with (`POST /v1/provider-tokens`, the web
/// console's JWT generator; docs/console.md §6). Made by OpenSSL when the server starts, held
/// only in this process's memory (no file, never sent), and registered among the configured keys
/// as a team-scoped key of both environments, so that the tokens it signs pass every listener's
/// checks, strict mode included, until the server stops. Only a client of the control API can
/// have a token signed, and that client may already change every answer (faults), so the key
/// opens nothing the control API did not.
public struct ProviderTestKey: Sendable {
    /// The test key's ID, the tokens' `kid`: 10 characters, as Apple's.
    public static let keyID = "CONSOLEKEY"
    /// The test key's team, the tokens' `iss`.
    public static let teamID = "MOCKAPNS00"

    /// Signs tokens with `kid` = `keyID` and `iss` = `teamID`.
    public let signer: ProviderTokenSigner
    /// The public half as a configured key: team-scoped, sandbox and production.
    public let providerKey: ProviderKey

    /// A new test key.
    /// - Throws: `AuthMaterialError` when OpenSSL cannot make or encode the key.
    public static func generate() throws -> ProviderTestKey {
        let key = try ES256PrivateKey.generate()
        return ProviderTestKey(
            signer: ProviderTokenSigner(key: key, keyID: keyID, teamID: teamID),
            providerKey: ProviderKey(keyID: keyID, teamID: teamID, publicKey: try key.publicKey(), scope: .team))
    }

    /// `keys` with this key added, or nil when a configured key already has its ID (the
    /// configured key stays; the server then has no test key).
    public func registered(in keys: KeyStore) -> KeyStore? {
        guard keys[Self.keyID] == nil else { return nil }
        return KeyStore(Array(keys.keys.values) + [providerKey])
    }
}
