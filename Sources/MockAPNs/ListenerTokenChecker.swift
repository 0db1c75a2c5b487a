import APNsAuth
import APNsCore
import ControlAPI

/// `POST /v1/validate/provider-token`'s checker (docs/console.md §6): the listener's own
/// `TokenAuthenticator` on the configured keys and the server clock, in strict mode (an unknown
/// key is reported, whatever the listener's mode), on a fresh connection's state (so the
/// 20-minute rule, a property of a connection, is reported as times, not applied).
struct ListenerTokenChecker: ProviderTokenChecker {
    /// A listener by name and environment.
    struct Target: Sendable {
        var name: String
        var environment: APNsEnvironment
    }

    let targets: [Target]
    let keys: KeyStore
    let clock: ServerClock
    let policy = TokenPolicy.apple

    func check(authorization: String, topic: String?, listener: String?) -> ProviderTokenCheck? {
        guard let target = listener.map({ name in targets.first { $0.name == name } }) ?? targets.first else {
            return nil
        }
        var state = TokenConnectionState()
        let outcome = TokenAuthenticator.authenticate(
            authorization: authorization, topic: topic, environment: target.environment, mode: .strict,
            nowSeconds: clock.now(), keys: keys, policy: policy, state: &state)
        let identity = outcome.identity
        return ProviderTokenCheck(
            listener: target.name, environment: target.environment, reason: outcome.reason,
            verdict: identity.verdict, keyID: identity.keyID, teamID: identity.teamID, issuedAt: identity.issuedAt,
            keyConfigured: identity.keyID.map { keys[$0] != nil } ?? false,
            maximumAgeSeconds: policy.maximumAge, minimumRefreshSeconds: policy.minimumRefreshInterval)
    }
}
