/// The `:method` and `:path` rules: the first checks APNs applies (docs/apns-behaviour.md §1.1, §3, §9
/// "Order of checks").
enum RequestPathRule {
    /// What `:path` holds.
    enum Outcome: Equatable {
        /// `/3/device/<token>`: the raw token text, everything after the prefix, not yet validated.
        case token(Substring)
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
        let matched = UTF8Bytes.with(path) { bytes in
            var matched = 0
            while matched < prefix.count && matched < bytes.count && bytes[matched] == prefix[matched] {
                matched += 1
            }
            return (matched, bytes.count)
        }
        switch matched {
        case (prefix.count, prefix.count):
            return .missingToken
        case (prefix.count, _):
            // The prefix is ASCII, so the offset is a scalar boundary and valid for the String.
            return .token(path[path.utf8.index(path.utf8.startIndex, offsetBy: prefix.count)...])
        case (prefix.count - 1, prefix.count - 1):
            // `/3/device`: the prefix without its final slash names the endpoint, with no token.
            return .missingToken
        default:
            return .badPath
        }
    }

    private static let prefix: [UInt8] = Array("/3/device/".utf8)
}
