import COpenSSL

/// An APNs auth key's private half (EC P-256), for minting provider tokens in the CLI
/// (`mock-apns jwt`, `mock-apns send`) and in tests. The gateway itself never needs one.
///
/// Sendable: the `EVP_PKEY` is never modified after construction; each signature uses its own
/// OpenSSL context.
public final class ES256PrivateKey: @unchecked Sendable {
    let pkey: OpaquePointer

    /// Loads a key from PEM text: `PRIVATE KEY` (PKCS#8, Apple's `.p8` files) or `EC PRIVATE KEY`.
    /// - Parameter source: names the key in error messages (a file name).
    /// A public key (`PUBLIC KEY`) is refused with a message that says so: signing needs the
    /// private half.
    public init(pem: String, source: String = "key") throws {
        do {
            pkey = try PEMKeyReader.privateKey(pem: pem, source: source)
        } catch {
            guard PEMKeyReader.holdsPublicKey(pem: pem) else { throw error }
            throw AuthMaterialError(
                "\(source) is a public key (PEM PUBLIC KEY); signing needs the private key: "
                    + "the .p8 auth key file (PEM PRIVATE KEY)")
        }
    }

    /// Loads a key from a `.p8` file; see `init(pem:source:)`.
    public convenience init(contentsOfFile path: String) throws {
        try self.init(pem: try PEMFile.read(path), source: path)
    }

    /// Takes ownership of `pkey`, an EC P-256 private key.
    init(owning pkey: OpaquePointer) {
        self.pkey = pkey
    }

    /// A new random P-256 key made by OpenSSL (the control API's test key, `ProviderTestKey`).
    /// - Throws: `AuthMaterialError` when OpenSSL cannot make one.
    public static func generate() throws -> ES256PrivateKey {
        guard let key = mockapns_generate_p256() else {
            throw AuthMaterialError.openSSL("cannot generate a P-256 key")
        }
        return ES256PrivateKey(owning: key)
    }

    deinit { EVP_PKEY_free(pkey) }

    /// The matching public key.
    public func publicKey() throws -> ES256PublicKey {
        try ES256PublicKey(owning: try PEMKeyReader.publicHalf(of: pkey, source: "private key"), source: "private key")
    }
}
