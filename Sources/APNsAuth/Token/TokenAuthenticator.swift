import APNsCore

/// Authenticates one push on a token-based connection: a pure function of the request's
/// `authorization` and `apns-topic`, the listener, the clock, the keys and the connection's
/// state (Apple, *Establishing a token-based connection to APNs* (A3) and *Handling
/// notification responses from APNs* (A2); docs/apns-behaviour.md §2, §4, §6, §9).
public enum TokenAuthenticator {
    /// Decides whether the push passes provider authentication, and updates `state`.
    ///
    /// Checks, in order, once a bearer token is present:
    /// 1. parsable ES256 JWT with `kid`, `iss`, numeric `iat` → else 403 `InvalidProviderToken`;
    /// 2. `kid` names a configured key → else strict: 403 `InvalidProviderToken`; permissive:
    ///    passes flagged `unknown-key-accepted` (steps 3, 4, 6, 8 and 9 need the key and are skipped);
    /// 3. the key verifies the signature (raw `r‖s` or DER) → else `InvalidProviderToken`;
    /// 4. `iss` is the key's team → else `InvalidProviderToken`;
    /// 5. `iat` at most `policy.maximumAge` (3600 s) old → else 403 `ExpiredProviderToken`;
    ///    at most `policy.allowedFutureSkew` (60 s) ahead → else `InvalidProviderToken`;
    /// 6. the key is valid for `environment` → else 403 `BadEnvironmentKeyIdInToken`;
    /// 7. `iss` is the team the connection's first accepted push bound → else
    ///    `InvalidProviderToken` (pushy's mock; the reason is UNVERIFIED, docs/apns-behaviour.md §4);
    /// 8. the key is related to the bound key (`ProviderKey.isRelated(to:)`: same key, two
    ///    team-scoped keys, or a topic-specific key and its related key) → else 403
    ///    `UnrelatedKeyIdInToken` (A2, A3);
    /// 9. the key's scope covers `topic` → else `InvalidProviderToken` (pushy's mock);
    /// 10. a token different from the one in use, less than `policy.minimumRefreshInterval`
    ///    (1200 s) after the connection started using that one → 429 `TooManyProviderTokenUpdates`
    ///    (A3, A2). Only tokens that pass every other check count as an update.
    ///
    /// A push that passes makes its token the one in use (since `nowSeconds`, when it changed)
    /// and, on the connection's first accepted push, binds its team and key. Parsing and
    /// verification are cached per token string, so a connection reusing a token pays for one
    /// verification; times, team, key and scope are checked on every push. A push repeating the
    /// `authorization` header of the last accepted push (same keys, mode and environment) is
    /// answered with that push's outcome once its token age and topic scope pass: every other
    /// check depends only on what it repeats (`AcceptedToken`).
    ///
    /// - Parameters:
    ///   - authorization: the `authorization` header value, `nil` when absent.
    ///   - topic: `apns-topic`, `nil` when absent (then the scope check is skipped; request
    ///     validation answers `MissingTopic`).
    ///   - environment: the listener's environment.
    ///   - mode: `none` passes everything unchecked; `permissive` passes pushes without a
    ///     token and tokens from unknown keys; `strict` demands a valid token from a configured key.
    ///   - certificateAuthenticated: the connection presented a trusted client certificate;
    ///     APNs then ignores `authorization` (A1, A10), so this passes at once and
    ///     `CertificateAuthorizer` decides instead.
    ///   - nowSeconds: the current time in seconds since the Unix epoch, with any configured
    ///     clock offset already applied by the caller.
    ///   - keys: the configured keys.
    ///   - policy: the time rules (Apple's by default).
    ///   - state: the connection's state, read and updated.
    public static func authenticate(
        authorization: String?, topic: String?, environment: APNsEnvironment,
        mode: AuthMode, certificateAuthenticated: Bool = false, nowSeconds: Double,
        keys: KeyStore, policy: TokenPolicy = .apple,
        state: inout TokenConnectionState
    ) -> AuthOutcome {
        if mode == .none { return AuthOutcome(reason: nil, identity: AuthIdentity(kind: .none, verdict: "unchecked")) }
        if certificateAuthenticated {
            return AuthOutcome(
                reason: nil, identity: AuthIdentity(kind: .certificate, verdict: "certificate-authenticated"))
        }
        if let quick = state.quickOutcome(
            authorization: authorization, topic: topic, environment: environment,
            mode: mode, nowSeconds: nowSeconds, keys: keys, policy: policy)
        {
            return quick
        }
        let jwt: Substring
        switch authorization.map(ProviderTokenParser.bearerToken(in:)) ?? .failure(.missing) {
        case .success(let token):
            jwt = token
        case .failure(.missing) where mode == .permissive:
            return noToken
        case .failure(let error):
            return AuthOutcome(
                reason: error.reason, identity: AuthIdentity(kind: .token, verdict: "rejected: \(error)"))
        }

        let checked = check(jwt, keys: keys, state: &state)
        let token: ProviderToken
        switch checked.parsed {
        case .success(let parsed): token = parsed
        case .failure(let error):
            return AuthOutcome(
                reason: error.reason, identity: AuthIdentity(kind: .token, verdict: "rejected: \(error)"))
        }
        func reject(_ reason: Reason, _ why: String) -> AuthOutcome {
            AuthOutcome(
                reason: reason,
                identity: AuthIdentity(
                    kind: .token, keyID: token.keyID, teamID: token.teamID,
                    issuedAt: token.issuedAt, verdict: "rejected: \(why)"))
        }

        let key = checked.key
        if let key {
            guard checked.signatureValid else { return reject(.invalidProviderToken, "bad signature") }
            guard token.teamID == key.teamID else {
                return reject(.invalidProviderToken, "iss \(token.teamID) is not key \(key.keyID)'s team \(key.teamID)")
            }
        } else if mode == .strict {
            return reject(.invalidProviderToken, "unknown key \(token.keyID)")
        }

        let age = nowSeconds - token.issuedAt
        if age > policy.maximumAge {
            return reject(
                .expiredProviderToken,
                "iat is \(Self.seconds(age)) s old (maximum \(Self.seconds(policy.maximumAge)) s)")
        }
        if -age > policy.allowedFutureSkew {
            return reject(.invalidProviderToken, "iat is \(Self.seconds(-age)) s in the future")
        }
        if let key, !key.environments.contains(environment) {
            return reject(.badEnvironmentKeyIDInToken, "key \(key.keyID) is not valid for \(environment.rawValue)")
        }
        if let boundTeam = state.boundTeamID, boundTeam != token.teamID {
            return reject(.invalidProviderToken, "team \(token.teamID) is not the connection's team \(boundTeam)")
        }
        if let key, let boundKey = state.boundKey, !boundKey.isRelated(to: key) {
            return reject(
                .unrelatedKeyIDInToken, "key \(key.keyID) is unrelated to the connection's key \(boundKey.keyID)")
        }
        if let key, let topic, !(state.scopeKey === key && state.scopeTopic == topic) {
            guard key.allows(topic: topic) else {
                return reject(.invalidProviderToken, "topic \(topic) is outside key \(key.keyID)'s scope")
            }
            state.scopeKey = key
            state.scopeTopic = topic
        }
        let changesToken = state.current.map { !UTF8Bytes.equal($0.jwt, checked.jwt) } ?? true
        if changesToken, let since = state.currentTokenSince, nowSeconds - since < policy.minimumRefreshInterval {
            return reject(
                .tooManyProviderTokenUpdates,
                "new token \(Int(nowSeconds - since)) s after the previous one (minimum \(Int(policy.minimumRefreshInterval)) s)"
            )
        }

        if changesToken {
            state.current = checked
            state.currentTokenSince = nowSeconds
            if let candidate = state.candidate, UTF8Bytes.equal(candidate.jwt, checked.jwt) { state.candidate = nil }
        } else if state.current?.keys !== keys {
            state.current = checked  // re-checked against a new key store
        }
        if state.boundTeamID == nil {
            state.boundTeamID = token.teamID
            state.boundKeyID = token.keyID
            state.boundKey = key
        }
        let outcome = AuthOutcome(
            reason: nil,
            identity: AuthIdentity(
                kind: .token, keyID: token.keyID, teamID: token.teamID,
                issuedAt: token.issuedAt,
                verdict: key == nil ? "unknown-key-accepted" : "verified"))
        if let authorization {
            state.accepted = AcceptedToken(
                authorization: authorization, keys: keys, key: key, mode: mode,
                environment: environment, issuedAt: token.issuedAt, outcome: outcome)
        }
        return outcome
    }

    /// The cached check of `jwt`, or a new one (parse, key lookup, one signature verification),
    /// remembered as the candidate.
    private static func check(_ jwt: Substring, keys: KeyStore, state: inout TokenConnectionState) -> CheckedToken {
        if let current = state.current, current.matches(jwt, keys) { return current }
        if let candidate = state.candidate, candidate.matches(jwt, keys) { return candidate }
        let parsed = ProviderTokenParser.parse(jwt: jwt)
        var key: ProviderKey?
        var signatureValid = false
        if case .success(let token) = parsed, let found = keys[token.keyID] {
            key = found
            signatureValid = ES256.verify(signature: token.signature, message: token.signingInput, key: found.publicKey)
            state.verifications += 1
        }
        let checked = CheckedToken(
            jwt: String(jwt), keys: keys, parsed: parsed, key: key, signatureValid: signatureValid)
        state.candidate = checked
        return checked
    }

    /// The outcome of every push without a token under permissive authentication: accepted,
    /// identity kind `none`, verdict `no-token`; nothing else is checked.
    public static let noToken = AuthOutcome(reason: nil, identity: AuthIdentity(kind: .none, verdict: "no-token"))

    /// Whole seconds for a message; `iat` comes from the client and may be any double, so no
    /// trapping conversion.
    static func seconds(_ value: Double) -> String {
        abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
