import COpenSSL

/// Secret comparison whose time does not depend on where two byte strings differ: OpenSSL's
/// `CRYPTO_memcmp`, for the control API's bearer token (README "Security").
public enum ConstantTimeComparison {
    /// True when `given` equals `secret`. The time taken depends only on `secret`'s length: a
    /// `given` of another length is refused after comparing `secret` with itself, so only the
    /// length can be learnt by timing, never a prefix.
    public static func equal(_ given: [UInt8], _ secret: [UInt8]) -> Bool {
        let sameLength = given.count == secret.count
        let compared = sameLength ? given : secret
        let difference = compared.withUnsafeBytes { lhs in
            secret.withUnsafeBytes { rhs in CRYPTO_memcmp(lhs.baseAddress, rhs.baseAddress, secret.count) }
        }
        return sameLength && difference == 0
    }
}
