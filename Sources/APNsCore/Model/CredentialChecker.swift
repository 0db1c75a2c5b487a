import HTTPFields

/// The credential check of one connection, passed to `Gateway.handle` (implemented by APNsAuth's
/// `ConnectionCredentials`; a connection without checks passes `NoCredentialCheck`). A class, so
/// the gateway calls it through the reference it is given: nothing is copied or boxed per push.
///
/// The gateway ranks `check`'s reason after method and path problems (405, 404,
/// MissingDeviceToken) and before every other check: APNs answers MissingProviderToken before
/// looking at the device token (docs/apns-behaviour.md §9, order of checks).
public protocol CredentialChecker: AnyObject {
    /// Checks the credentials of `request`, given what validation parsed (its topic and push
    /// type); nil when this connection checks none.
    func check(_ verdict: ValidationResult, of request: HTTP2Request) -> AuthorizationResult?
    /// Told once per push, after the gateway decided (`PushDecision.accepted`): what the
    /// check learned is kept when the push was `accepted` (the first accepted push binds the
    /// team; Apple, *Establishing a token-based connection to APNs*), and only what it paid
    /// for (a verified signature) when not.
    func settle(accepted: Bool)
}

/// No credential checks (a listener with `auth: none`, and tests).
public final class NoCredentialCheck: CredentialChecker, Sendable {
    public init() {}
    /// One for every caller: it keeps no state.
    public static let shared = NoCredentialCheck()
    public func check(_ verdict: ValidationResult, of request: HTTP2Request) -> AuthorizationResult? { nil }
    public func settle(accepted: Bool) {}
}
