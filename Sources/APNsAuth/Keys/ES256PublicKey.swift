import COpenSSL

/// The verifying half of an APNs auth key: an EC P-256 public key held by OpenSSL (ES256,
/// Apple *Establishing a token-based connection to APNs*).
///
/// Sendable: the `EVP_PKEY` is never modified after construction, and OpenSSL 3 allows one key
/// to be used by any number of verification contexts on different threads at once.
public final class ES256PublicKey: @unchecked Sendable, Hashable {
    let pkey: OpaquePointer
    /// The key as DER SubjectPublicKeyInfo: its identity for equality.
    public let subjectPublicKeyInfo: [UInt8]

    /// Loads a key from PEM text: a `PUBLIC KEY` block, or the public half of a `PRIVATE KEY`
    /// (an Apple `.p8` file, PKCS#8) or `EC PRIVATE KEY` block.
    /// - Parameter source: names the key in error messages (a file name).
    public convenience init(pem: String, source: String = "key") throws {
        try self.init(owning: try PEMKeyReader.publicKey(pem: pem, source: source), source: source)
    }

    /// Takes ownership of `pkey`, a public-only P-256 key; frees it when construction fails.
    init(owning pkey: OpaquePointer, source: String) throws {
        self.pkey = pkey
        do {
            subjectPublicKeyInfo = try PEMKeyReader.subjectPublicKeyInfo(pkey, source: source)
        } catch {
            EVP_PKEY_free(pkey)
            throw error
        }
    }

    /// Loads a key from a PEM file (`.p8` or public-key PEM); see `init(pem:source:)`.
    public convenience init(contentsOfFile path: String) throws {
        try self.init(pem: try PEMFile.read(path), source: path)
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Keys are equal when their SubjectPublicKeyInfo bytes are.
    public static func == (lhs: ES256PublicKey, rhs: ES256PublicKey) -> Bool {
        lhs.subjectPublicKeyInfo == rhs.subjectPublicKeyInfo
    }

    /// Hashes the SubjectPublicKeyInfo bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(subjectPublicKeyInfo) }
}
