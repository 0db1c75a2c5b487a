import COpenSSL

/// Reads EC P-256 keys from PEM text with OpenSSL. Every function returns an `EVP_PKEY` the
/// caller owns.
enum PEMKeyReader {
    /// A public-only key from a `PUBLIC KEY` block, or derived from a private key (`PRIVATE KEY`,
    /// the PKCS#8 form of Apple's `.p8` files, or `EC PRIVATE KEY`). Keeping only the public
    /// half means a verifier never holds a provider's private key.
    static func publicKey(pem: String, source: String) throws -> OpaquePointer {
        if let key = read(pem, { PEM_read_bio_PUBKEY($0, nil, nil, nil) }) {
            return try checkedP256(key, source: source)
        }
        ERR_clear_error()
        let privateKey = try privateKey(pem: pem, source: source)
        defer { EVP_PKEY_free(privateKey) }
        return try publicHalf(of: privateKey, source: source)
    }

    /// A new public-only key equal to `key`'s public half: a round trip through
    /// SubjectPublicKeyInfo DER drops the private scalar.
    static func publicHalf(of key: OpaquePointer, source: String) throws -> OpaquePointer {
        let spki = try subjectPublicKeyInfo(key, source: source)
        let publicKey: OpaquePointer? = spki.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let publicKey else { throw AuthMaterialError.openSSL("\(source): cannot extract the public key") }
        return publicKey
    }

    /// A private key from a `PRIVATE KEY` (PKCS#8, Apple's `.p8`) or `EC PRIVATE KEY` block.
    static func privateKey(pem: String, source: String) throws -> OpaquePointer {
        guard let key = read(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            throw AuthMaterialError.openSSL("\(source): no PEM private or public key found")
        }
        return try checkedP256(key, source: source)
    }

    /// True when `pem` holds a `PUBLIC KEY` block OpenSSL can read (any algorithm); clears
    /// OpenSSL's error queue.
    static func holdsPublicKey(pem: String) -> Bool {
        defer { ERR_clear_error() }
        guard let key = read(pem, { PEM_read_bio_PUBKEY($0, nil, nil, nil) }) else { return false }
        EVP_PKEY_free(key)
        return true
    }

    /// The DER SubjectPublicKeyInfo of `key`.
    static func subjectPublicKeyInfo(_ key: OpaquePointer, source: String) throws -> [UInt8] {
        let length = i2d_PUBKEY(key, nil)
        guard length > 0 else { throw AuthMaterialError.openSSL("\(source): cannot encode the public key") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_PUBKEY(key, &cursor)
        }
        guard written == length else { throw AuthMaterialError.openSSL("\(source): cannot encode the public key") }
        return der
    }

    /// Calls `body` with a memory BIO over `pem`'s bytes.
    private static func read(_ pem: String, _ body: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        var bytes = Array(pem.utf8)
        return bytes.withUnsafeMutableBytes { buffer -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// `key` when it is an EC key on P-256, the only curve ES256 allows (RFC 7518 section 3.4,
    /// Apple A3); otherwise frees it and throws.
    private static func checkedP256(_ key: OpaquePointer, source: String) throws -> OpaquePointer {
        var name = [CChar](repeating: 0, count: 80)
        var length = 0
        let isEC = EVP_PKEY_get_base_id(key) == EVP_PKEY_EC
        let hasGroup = isEC && EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1
        let group = hasGroup ? String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        guard group == "prime256v1" || group == "P-256" else {
            EVP_PKEY_free(key)
            ERR_clear_error()
            throw AuthMaterialError("\(source): not an EC P-256 key (ES256 needs P-256)")
        }
        return key
    }
}
