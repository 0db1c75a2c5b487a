import Glibc

/// The `:method` and `:path` rules: the first checks APNs applies (docs/apns-behaviour.md §1.1, §3, §9
/// "Order of checks").
enum RequestPathRule {
    /// What `:path` holds.
    enum Outcome: Equatable {
        /// `/3/device/<token>`: the raw token text is everything after the prefix (the path's
        /// bytes from `prefixLength` on), not yet validated. No `Substring` is made of it: the
        /// validator reads those bytes in place.
        case token
        /// `/3/device/` or `/3/device` with nothing after it: 400 `MissingDeviceToken`.
        case missingToken
        /// Any other path: 404 `BadPath`.
        case badPath
    }

    /// APNs accepts only POST (405 `MethodNotAllowed` otherwise). HTTP methods are case-sensitive
    /// (RFC 9110 section 9.1), so `post` is not POST.
    static func isAllowedMethod(_ method: String) -> Bool { method == "POST" }

    /// Splits `:path`. Everything after `/3/device/` is the token text, including any `/`, `?`
    /// or `%`: no percent-decoding, as in pushy's mock (L1), so such paths end as
    /// `BadDeviceToken`, never `BadPath`.
    static func parse(_ path: String) -> Outcome {
        let (hasPrefix, count) = UTF8Bytes.with(path) { bytes -> (Bool, Int) in
            // `/3/device` with or without its final slash: the prefix's first `count` bytes.
            let compared = min(bytes.count, prefixLength)
            let same =
                compared >= prefixLength - 1
                && memcmp(bytes.baseAddress!, RequestPathRule.prefix.utf8Start, compared) == 0
            return (same, bytes.count)
        }
        guard hasPrefix else { return .badPath }
        // `/3/device` alone: the prefix without its final slash names the endpoint, with no token.
        if count <= prefixLength { return .missingToken }
        return .token
    }

    /// The token text of `path` (whose `parse` is `.token`): its UTF-8 bytes after the prefix, lent
    /// to `body`. The prefix is ASCII, so they start on a scalar boundary.
    @inline(__always)
    static func withToken<R>(of path: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        UTF8Bytes.with(path) { bytes in body(UnsafeBufferPointer(rebasing: bytes[prefixLength...])) }
    }

    private static let prefix: StaticString = "/3/device/"
    /// Bytes of `/3/device/`.
    static let prefixLength = 10
}
