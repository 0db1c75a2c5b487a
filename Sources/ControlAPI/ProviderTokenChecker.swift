/// Checks a provider token (JWT) as a listener would, for `POST /v1/validate/provider-token`
/// (docs/console.md §6): the server's implementation runs the listener's `TokenAuthenticator`
/// against the configured keys, in strict mode, on a fresh connection's state.
public protocol ProviderTokenChecker: Sendable {
    /// The verdict on `authorization` (`bearer <JWT>`, or the JWT alone) for `topic` on the
    /// listener named `listener` (nil: the first); nil when there is no such listener.
    func check(authorization: String, topic: String?, listener: String?) -> ProviderTokenCheck?
}
