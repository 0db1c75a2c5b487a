import COpenSSL

/// ECDSA P-256 with SHA-256 (JWS `ES256`, RFC 7518 section 3.4), through OpenSSL's EVP API.
///
/// Signatures come in two encodings (docs/apns-behaviour.md §4): JWS raw `r‖s`, 64 bytes, which
/// golang-jwt and PyJWT produce; and DER `ECDSA-Sig-Value`, which Java's `SHA256withECDSA`
/// (pushy) produces and Apple's own sample token carries. Both verify.
public enum ES256 {
    /// The size of a raw `r‖s` signature in bytes: two 32-byte big-endian integers.
    public static let rawSignatureSize = 64

    /// Whether `signature` (raw `r‖s` or DER) is `key`'s signature of `message`.
    public static func verify(signature: [UInt8], message: [UInt8], key: ES256PublicKey) -> Bool {
        if signature.count == rawSignatureSize, let der = der(fromRaw: signature),
            verifyDER(der, message: message, key: key)
        {
            return true
        }
        // A DER signature is 8 to 72 bytes, so 64 bytes is rare but possible: try both.
        guard signature.first == 0x30 else { return false }
        return verifyDER(signature, message: message, key: key)
    }

    /// `key`'s signature of `message` as raw `r‖s` (64 bytes, the JWS encoding), or `nil` if
    /// OpenSSL fails.
    public static func sign(message: [UInt8], key: ES256PrivateKey) -> [UInt8]? {
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pkey) == 1 else { return nil }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { return nil }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else { return nil }
        return raw(fromDER: Array(der.prefix(length)))
    }

    /// The DER `ECDSA-Sig-Value` for a raw 64-byte `r‖s` signature, or `nil` when `raw` is not 64 bytes.
    public static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == rawSignatureSize, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let half = rawSignatureSize / 2
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(half), nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + half, Int32(half), nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {  // set0 takes r and s
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }

    /// The raw 64-byte `r‖s` for a DER `ECDSA-Sig-Value`, or `nil` when `der` is not one (or
    /// `r` or `s` exceeds 32 bytes).
    public static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else {
            ERR_clear_error()
            return nil
        }
        defer { ECDSA_SIG_free(signature) }
        let half = rawSignatureSize / 2
        var raw = [UInt8](repeating: 0, count: rawSignatureSize)
        let ok = raw.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(ECDSA_SIG_get0_r(signature), buffer.baseAddress, Int32(half)) == half
                && BN_bn2binpad(ECDSA_SIG_get0_s(signature), buffer.baseAddress! + half, Int32(half)) == half
        }
        return ok ? raw : nil
    }

    private static func verifyDER(_ der: [UInt8], message: [UInt8], key: ES256PublicKey) -> Bool {
        ERR_clear_error()
        defer { ERR_clear_error() }  // a failed verification leaves errors on the thread's queue
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pkey) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    }
}
