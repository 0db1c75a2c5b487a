import Foundation

/// Parses the `authorization` header of a token-authenticated push into a `ProviderToken`
/// (Apple, *Establishing a token-based connection to APNs*; docs/apns-behaviour.md §1.2, §4, §9).
/// Checks the form only; the signature, key and times are `TokenAuthenticator`'s.
public enum ProviderTokenParser {
    /// The JWT in an `authorization` value `bearer <JWT>`.
    ///
    /// Decision: the scheme name is matched case-insensitively (`Bearer` too: HTTP auth schemes
    /// are case-insensitive, RFC 9110 section 11.1; what APNs does is UNVERIFIED, docs/apns-behaviour.md
    /// §1.2), followed by one or more spaces or tabs; whitespace around the value is ignored.
    /// - Returns: the token text, `.missing` for an empty value or a bare `bearer`, `.notBearer`
    ///   for any other scheme or a value with no scheme.
    public static func bearerToken(in authorization: String) -> Result<Substring, ProviderTokenError> {
        // Byte offsets over contiguous UTF-8: this runs on every push, cached token or not.
        var text = authorization
        let found: Result<Range<Int>, ProviderTokenError> = text.withUTF8 { bytes in
            var start = 0, end = bytes.count
            while start < end && isSpace(bytes[start]) { start += 1 }
            while end > start && isSpace(bytes[end - 1]) { end -= 1 }
            if start == end { return .failure(.missing) }
            let scheme: StaticString = "bearer"
            let schemeLength = scheme.utf8CodeUnitCount
            guard end - start >= schemeLength else { return .failure(.notBearer) }
            for offset in 0..<schemeLength where bytes[start + offset] | 0x20 != scheme.utf8Start[offset] {
                return .failure(.notBearer)
            }
            start += schemeLength
            if start == end { return .failure(.missing) }
            guard isSpace(bytes[start]) else { return .failure(.notBearer) }
            while start < end && isSpace(bytes[start]) { start += 1 }
            return start == end ? .failure(.missing) : .success(start..<end)
        }
        return found.map { range in
            let utf8 = authorization.utf8
            let lower = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
            return authorization[lower..<utf8.index(lower, offsetBy: range.count)]
        }
    }

    /// Parses an `authorization` header value (`nil` when the header is absent).
    public static func parse(authorization: String?) -> Result<ProviderToken, ProviderTokenError> {
        guard let authorization else { return .failure(.missing) }
        return bearerToken(in: authorization).flatMap(parse(jwt:))
    }

    /// Parses a compact JWS `<header>.<claims>.<signature>`, each part base64url.
    ///
    /// Rules (docs/apns-behaviour.md §4, §9): header `alg` is exactly `ES256` and `kid` a non-empty
    /// string; claims `iss` a non-empty string and `iat` a number or a numeric string (decimal
    /// digits with an optional fraction, read as seconds); the signature is non-empty. Extra
    /// header fields (`typ`) and claims are ignored. Header and claims are parsed by Foundation's
    /// `JSONDecoder`, so any valid JSON spacing is accepted.
    public static func parse(jwt: Substring) -> Result<ProviderToken, ProviderTokenError> {
        let utf8 = jwt.utf8
        guard let firstDot = utf8.firstIndex(of: UInt8(ascii: ".")),
            let lastDot = utf8.lastIndex(of: UInt8(ascii: ".")), firstDot != lastDot,
            !utf8[utf8.index(after: firstDot)..<lastDot].contains(UInt8(ascii: "."))
        else { return .failure(.malformed("not three dot-separated parts")) }
        let headerText = jwt[..<firstDot]
        let claimsText = jwt[jwt.index(after: firstDot)..<lastDot]
        let signatureText = jwt[jwt.index(after: lastDot)...]

        guard let headerBytes = Base64URL.decode(headerText) else {
            return .failure(.malformed("header is not base64url"))
        }
        guard let claimsBytes = Base64URL.decode(claimsText) else {
            return .failure(.malformed("claims are not base64url"))
        }
        guard let signature = Base64URL.decode(signatureText) else {
            return .failure(.malformed("signature is not base64url"))
        }
        guard !signature.isEmpty else { return .failure(.malformed("the signature is empty")) }

        let decoder = JSONDecoder()
        let header: Header
        let claims: Claims
        do {
            header = try decoder.decode(Header.self, from: Data(headerBytes))
        } catch {
            return .failure(.malformed("header is not a JSON object with string alg and kid"))
        }
        do {
            claims = try decoder.decode(Claims.self, from: Data(claimsBytes))
        } catch {
            return .failure(.malformed("claims are not a JSON object with string iss and numeric iat"))
        }
        guard let alg = header.alg else { return .failure(.malformed("alg is missing")) }
        guard alg == "ES256" else { return .failure(.malformed("alg is \(alg), not ES256")) }
        guard let kid = header.kid, !kid.isEmpty else { return .failure(.malformed("kid is missing")) }
        guard let iss = claims.iss, !iss.isEmpty else { return .failure(.malformed("iss is missing")) }
        guard let iat = claims.iat else { return .failure(.malformed("iat is missing")) }
        return .success(
            ProviderToken(
                keyID: kid, teamID: iss, issuedAt: iat.seconds,
                signingInput: Array(utf8[..<lastDot]), signature: signature))
    }

    private struct Header: Decodable {
        let alg: String?
        let kid: String?
    }

    private struct Claims: Decodable {
        let iss: String?
        let iat: IssuedAt?
    }

    /// `iat` as APNs accepts it in production (docs/apns-behaviour.md §9): an integer, a float
    /// (PyAPNs2 sends `time.time()`) or a numeric string (APNSwift 5.x, kalyke). Booleans,
    /// non-finite values, signs, exponents and hexadecimal strings are refused.
    private struct IssuedAt: Decodable {
        let seconds: Double

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self), number.isFinite {
                seconds = number
            } else if let text = try? container.decode(String.self), let number = IssuedAt.decimal(text) {
                seconds = number
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "iat is not numeric")
            }
        }

        /// `text` when it is decimal digits with an optional `.digits` fraction.
        private static func decimal(_ text: String) -> Double? {
            var sawDigit = false, sawDot = false, digitAfterDot = false
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    sawDigit = true
                    if sawDot { digitAfterDot = true }
                case UInt8(ascii: ".") where sawDigit && !sawDot:
                    sawDot = true
                default:
                    return nil
                }
            }
            guard sawDigit, !sawDot || digitAfterDot else { return nil }
            return Double(text)
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
