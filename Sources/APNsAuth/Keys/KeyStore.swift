/// The configured APNs auth keys, by key ID. Immutable: a configuration change builds a new
/// store, and connections notice the new instance (their cached verifications are redone), so
/// the per-request lookup takes no lock.
public final class KeyStore: Sendable {
    /// Every key, by `keyID`.
    public let keys: [String: ProviderKey]

    /// A store of `keys`; when two share a key ID, the later one wins.
    public init(_ keys: [ProviderKey]) {
        var byID: [String: ProviderKey] = [:]
        for key in keys { byID[key.keyID] = key }
        self.keys = byID
    }

    /// A store with no keys: every token is signed by an unknown key.
    public static let empty = KeyStore([])

    /// The key named `keyID` (a token's `kid`), or `nil`.
    public subscript(keyID: some StringProtocol) -> ProviderKey? {
        keys[String(keyID)]
    }

    /// Loads the keys a manifest (`keys.json`) lists; see `KeyManifest`.
    public convenience init(manifestAt path: String) throws {
        self.init(try KeyManifest.load(path: path))
    }
}
