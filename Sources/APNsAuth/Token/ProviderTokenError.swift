import APNsCore

/// Why an `authorization` header yields no usable provider token.
public enum ProviderTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No header, an empty one, or `bearer` with nothing after it: 403 `MissingProviderToken`
    /// (Apple, *Handling notification responses from APNs*; pushy's mock).
    case missing
    /// A value that is not `bearer <token>`: 403 `MissingProviderToken`, as pushy's mock answers.
    case notBearer
    /// A bearer value that is not a usable ES256 JWT: 403 `InvalidProviderToken`. The text says why.
    case malformed(String)

    /// The APNs reason for this error.
    public var reason: Reason {
        switch self {
        case .missing, .notBearer: return .missingProviderToken
        case .malformed: return .invalidProviderToken
        }
    }

    /// The error in words, for the record's verdict.
    public var description: String {
        switch self {
        case .missing: return "no provider token"
        case .notBearer: return "authorization is not \"bearer <token>\""
        case .malformed(let why): return "malformed token: \(why)"
        }
    }
}
