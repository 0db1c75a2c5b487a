import APNsAuth
import APNsCore
import XCTest

/// Sequences of pushes on one connection: the 20-minute rule, team and key binding, caching
/// (docs/apns-behaviour.md §4, §6; docs/field-cases.md C8, C9).
final class TokenConnectionStateTests: XCTestCase {
    private typealias F = AuthFixtures
    private let t0 = F.now

    private struct Step {
        let at: Double  // seconds after t0
        let authorization: String?
        var topic = "com.example.app"
        var mode: AuthMode = .strict
        let reason: Reason?
        var note = ""
    }

    private func play(
        _ name: String, _ steps: [Step], keys: KeyStore = F.keys, environment: APNsEnvironment = .sandbox,
        file: StaticString = #filePath, line: UInt = #line
    ) -> TokenConnectionState {
        var state = TokenConnectionState()
        for (index, step) in steps.enumerated() {
            let outcome = TokenAuthenticator.authenticate(
                authorization: step.authorization, topic: step.topic,
                environment: environment, mode: step.mode,
                nowSeconds: t0 + step.at, keys: keys, state: &state)
            XCTAssertEqual(
                outcome.reason, step.reason, "\(name) step \(index) \(step.note): \(outcome.identity.verdict)",
                file: file, line: line)
        }
        return state
    }

    /// Apple A3/A2: a new token more than once per 20 minutes → 429 TooManyProviderTokenUpdates.
    func testTwentyMinuteRule() {
        let a = F.bearer("TEAMUNI001", iat: t0)
        let b = F.bearer("TEAMUNI001", iat: t0 + 600)
        let c = F.bearer("TEAMUNI001", iat: t0 + 1260)
        let state = play(
            "20-minute rule",
            [
                Step(at: 0, authorization: a, reason: nil, note: "first token"),
                Step(at: 300, authorization: a, reason: nil, note: "same token reused"),
                Step(at: 600, authorization: b, reason: .tooManyProviderTokenUpdates, note: "new token at +10 min"),
                Step(at: 601, authorization: a, reason: nil, note: "the old token still works"),
                Step(at: 1199, authorization: b, reason: .tooManyProviderTokenUpdates, note: "new token at +19:59"),
                Step(at: 1260, authorization: b, reason: nil, note: "new token at +21 min"),
                Step(
                    at: 1300, authorization: a, reason: .tooManyProviderTokenUpdates,
                    note: "switching back is a change too"),
                Step(at: 2460, authorization: c, reason: nil, note: "20 min after b"),
            ])
        XCTAssertEqual(state.currentTokenSince, t0 + 2460)
    }

    /// Only a token that passes every other check counts as the token in use.
    func testRejectedTokenDoesNotRestartTheClock() {
        _ = play(
            "rejected tokens",
            [
                Step(at: 0, authorization: F.bearer("TEAMUNI001", iat: t0), reason: nil),
                Step(
                    at: 1300, authorization: F.bearer("TEAMUNI001", iat: t0 - 3000), reason: .expiredProviderToken,
                    note: "expired"),
                Step(
                    at: 1310, authorization: F.bearer("TEAMUNI001", iat: t0 + 1300), reason: nil,
                    note: "20 min after the first"),
            ])
    }

    /// Apple A3, pushy: the first accepted push binds the team; another team → InvalidProviderToken.
    func testTeamBinding() {
        let state = play(
            "team binding",
            [
                Step(at: 0, authorization: F.bearer("OTHERTEAM1", team: F.team2, iat: t0), reason: nil),
                Step(
                    at: 1300, authorization: F.bearer("TEAMUNI001", iat: t0 + 1300), reason: .invalidProviderToken,
                    note: "other team"),
                Step(at: 1310, authorization: F.bearer("OTHERTEAM1", team: F.team2, iat: t0), reason: nil),
            ])
        XCTAssertEqual(state.boundTeamID, F.team2)
        XCTAssertEqual(state.boundKeyID, "OTHERTEAM1")
    }

    /// A rejected first push binds nothing.
    func testBindingHappensOnAcceptance() {
        let state = play(
            "bind on acceptance",
            [
                Step(
                    at: 0, authorization: F.bearer("OTHERTEAM1", team: F.team2, iat: t0 - 4000),
                    reason: .expiredProviderToken),
                Step(at: 1, authorization: F.bearer("TEAMUNI001", iat: t0), reason: nil, note: "team 1 binds"),
            ])
        XCTAssertEqual(state.boundTeamID, F.team1)
    }

    /// Apple A2/A3: keys unrelated to the first push's key → UnrelatedKeyIdInToken (decision:
    /// team-scoped vs topic-specific, or topic-specific keys not named as related).
    func testUnrelatedKeys() {
        let later = t0 + 1300  // past the 20-minute rule, so only relatedness decides
        let rows: [(first: String, second: String, reason: Reason?)] = [
            ("TEAMUNI001", "TOPICA0001", .unrelatedKeyIDInToken),
            ("TOPICA0001", "TEAMUNI001", .unrelatedKeyIDInToken),
            ("TOPICA0001", "TOPICB0001", nil),  // related pair
            ("TOPICB0001", "TOPICA0001", nil),
            ("TOPICA0001", "TOPICC0001", .unrelatedKeyIDInToken),
            ("TEAMUNI001", "TEAMSBX001", nil),  // two team-scoped keys of one team
            ("TEAMUNI001", "OTHERTEAM1", .invalidProviderToken),  // another team: the team rule answers
        ]
        for row in rows {
            let team = row.second == "OTHERTEAM1" ? F.team2 : F.team1
            _ = play(
                "\(row.first) then \(row.second)",
                [
                    Step(at: 0, authorization: F.bearer(row.first, iat: t0), reason: nil),
                    Step(at: 1300, authorization: F.bearer(row.second, team: team, iat: later), reason: row.reason),
                ])
        }
    }

    /// Permissive: an unknown key binds its claimed team; a configured key of that team may follow.
    func testPermissiveUnknownKeyBinding() {
        let state = play(
            "permissive",
            [
                Step(at: 0, authorization: F.bearer("UNLISTED01", iat: t0), mode: .permissive, reason: nil),
                Step(at: 10, authorization: nil, mode: .permissive, reason: nil, note: "no token still passes"),
                Step(at: 1300, authorization: F.bearer("TOPICA0001", iat: t0 + 1300), mode: .permissive, reason: nil),
                Step(
                    at: 2600, authorization: F.bearer("OTHERTEAM1", team: F.team2, iat: t0 + 2600), mode: .permissive,
                    reason: .invalidProviderToken, note: "other team"),
            ])
        XCTAssertEqual(state.boundKeyID, "UNLISTED01")
    }

    /// A connection reusing one token pays for one verification; a rejected token retried is
    /// not verified again; a new key store is.
    func testVerificationIsCached() {
        var state = TokenConnectionState()
        let a = F.bearer("TEAMUNI001", iat: t0)
        let forged =
            "bearer "
            + F.crafted(
                header: #"{"alg":"ES256","kid":"TEAMUNI001"}"#,
                claims: #"{"iss":"TEAM000001","iat":\#(Int(t0))}"#, signedBy: "TEAMSBX001")
        func push(_ authorization: String?, at offset: Double, keys: KeyStore = F.keys) -> Reason? {
            TokenAuthenticator.authenticate(
                authorization: authorization, topic: "com.example.app", environment: .sandbox,
                mode: .strict, nowSeconds: t0 + offset, keys: keys, state: &state
            ).reason
        }
        for second in 0..<100 { XCTAssertNil(push(a, at: Double(second))) }
        XCTAssertEqual(state.verifications, 1)
        for second in 100..<110 { XCTAssertEqual(push(forged, at: Double(second)), .invalidProviderToken) }
        XCTAssertEqual(state.verifications, 2)
        XCTAssertNil(push(a, at: 200))
        XCTAssertEqual(state.verifications, 2, "the token in use stays cached beside the rejected one")
        XCTAssertNil(push("Bearer  " + a.dropFirst(7), at: 201))
        XCTAssertEqual(state.verifications, 2, "the cache is keyed by the token, not the header spelling")
        // Times are checked on every push even when cached.
        XCTAssertEqual(push(a, at: 3601), .expiredProviderToken)
        XCTAssertEqual(state.verifications, 2)
        // A new key store (configuration change) is consulted: the key may be gone.
        XCTAssertEqual(push(a, at: 300, keys: F.store("TEAMSBX001")), .invalidProviderToken)
        XCTAssertEqual(push(a, at: 301, keys: F.store("TEAMUNI001")), nil)
        XCTAssertEqual(state.verifications, 3)
        // Unknown keys and malformed tokens cost no verification.
        XCTAssertEqual(push(F.bearer("UNLISTED01", iat: t0), at: 302), .invalidProviderToken)
        XCTAssertEqual(push("bearer x.y.z", at: 303), .invalidProviderToken)
        XCTAssertEqual(state.verifications, 3)
    }

    /// Scope is checked per push against the cached key.
    func testScopePerPush() {
        let a = F.bearer("TOPICA0001", iat: t0)
        _ = play(
            "scope per push",
            [
                Step(at: 0, authorization: a, reason: nil),
                Step(at: 1, authorization: a, topic: "com.example.app.voip", reason: nil),
                Step(at: 2, authorization: a, topic: "com.example.other", reason: .invalidProviderToken),
                Step(at: 3, authorization: a, reason: nil),
            ])
    }

    /// The scope check's per-connection cache is keyed by key and topic.
    func testScopeCacheFollowsTheKey() {
        _ = play(
            "scope cache",
            [
                Step(at: 0, authorization: F.bearer("TOPICB0001", iat: t0), topic: "com.example.other", reason: nil),
                Step(
                    at: 1300, authorization: F.bearer("TOPICA0001", iat: t0 + 1300), topic: "com.example.other",
                    reason: .invalidProviderToken, note: "related key, narrower scope"),
                Step(at: 1301, authorization: F.bearer("TOPICA0001", iat: t0 + 1300), reason: nil),
                Step(
                    at: 1302, authorization: F.bearer("TOPICA0001", iat: t0 + 1300), topic: "com.example.other",
                    reason: .invalidProviderToken, note: "still outside after an accepted push"),
            ])
    }

    /// Environment is checked per push and per listener.
    func testEnvironmentPerListener() {
        _ = play(
            "production listener",
            [
                Step(at: 0, authorization: F.bearer("TEAMSBX001", iat: t0), reason: .badEnvironmentKeyIDInToken),
                Step(at: 1, authorization: F.bearer("TEAMPRD001", iat: t0), reason: nil),
            ], environment: .production)
    }

    /// A push repeating the last accepted push's header is answered with the same outcome, but
    /// its time and topic are still checked, and other keys, modes or environments are not
    /// answered from it.
    /// `K` (U+004B) and the Kelvin sign (U+212A) are equal Swift strings; the Kelvin spelling is
    /// not base64url, so a token holding it is malformed even right after the ASCII one passed.
    func testCanonicallyEquivalentTokenIsNotARepeat() throws {
        var iat = t0
        var token = F.bearer("TEAMUNI001", iat: iat)
        while !token.dropFirst(7).contains("K") {
            iat += 1
            token = F.bearer("TEAMUNI001", iat: iat)
        }
        let kelvin = token.replacingOccurrences(of: "K", with: "\u{212A}")
        XCTAssertEqual(kelvin, token, "equal as Swift strings")
        var fresh = TokenConnectionState()
        let alone = TokenAuthenticator.authenticate(
            authorization: kelvin, topic: "com.example.app", environment: .sandbox,
            mode: .strict, nowSeconds: iat, keys: F.keys, state: &fresh)
        XCTAssertEqual(alone.reason, .invalidProviderToken)
        var state = TokenConnectionState()
        for (authorization, expected) in [(token, nil), (kelvin, Reason.invalidProviderToken), (token, nil)]
            as [(String, Reason?)]
        {
            let outcome = TokenAuthenticator.authenticate(
                authorization: authorization, topic: "com.example.app", environment: .sandbox,
                mode: .strict, nowSeconds: iat, keys: F.keys, state: &state)
            XCTAssertEqual(
                outcome.reason, expected,
                authorization == kelvin && authorization.utf8.elementsEqual(kelvin.utf8) ? "Kelvin" : "ASCII")
        }
    }

    func testRepeatedHeaderReusesTheAcceptedOutcome() {
        var state = TokenConnectionState()
        let a = F.bearer("TEAMUNI001", iat: t0)
        func push(
            _ authorization: String?, at offset: Double, topic: String = "com.example.app", mode: AuthMode = .strict,
            environment: APNsEnvironment = .sandbox, keys: KeyStore = F.keys
        ) -> AuthOutcome {
            TokenAuthenticator.authenticate(
                authorization: authorization, topic: topic, environment: environment, mode: mode,
                nowSeconds: t0 + offset, keys: keys, state: &state)
        }
        let first = push(a, at: 0)
        XCTAssertNil(first.reason)
        XCTAssertEqual(first.identity.verdict, "verified")
        for second in 1..<50 { XCTAssertEqual(push(a, at: Double(second)), first) }
        XCTAssertEqual(state.repeatsAnswered, 49)
        XCTAssertEqual(push(a, at: 3601).reason, .expiredProviderToken, "the age is checked on a repeat")
        XCTAssertEqual(push(a, at: -61).reason, .invalidProviderToken, "so is a token from the future (clock set back)")
        XCTAssertEqual(push(a, at: 60, topic: "com.example.app.voip"), first, "a new topic in scope")
        XCTAssertEqual(push(a, at: 62, keys: F.store("TEAMSBX001")).reason, .invalidProviderToken, "the key is gone")
        XCTAssertEqual(push("Bearer  " + a.dropFirst(7), at: 63), first, "another spelling of the same token")
        XCTAssertEqual(state.repeatsAnswered, 49, "none of these came from the repeat path")
        XCTAssertEqual(push("Bearer  " + a.dropFirst(7), at: 64), first)
        XCTAssertEqual(state.repeatsAnswered, 50)

        // Permissive acceptance of an unknown key is no acceptance in strict mode.
        var permissive = TokenConnectionState()
        let unknown = F.bearer("UNLISTED01", iat: t0)
        for mode in [AuthMode.permissive, .permissive] {
            XCTAssertNil(
                TokenAuthenticator.authenticate(
                    authorization: unknown, topic: "com.example.app", environment: .sandbox,
                    mode: mode, nowSeconds: t0, keys: F.keys, state: &permissive
                ).reason)
        }
        XCTAssertEqual(permissive.repeatsAnswered, 1)
        XCTAssertEqual(
            TokenAuthenticator.authenticate(
                authorization: unknown, topic: "com.example.app", environment: .sandbox,
                mode: .strict, nowSeconds: t0, keys: F.keys, state: &permissive
            ).reason,
            .invalidProviderToken)

        // A sandbox key accepted on a sandbox listener is not accepted for production.
        var sandboxOnly = TokenConnectionState()
        let sbx = F.bearer("TEAMSBX001", iat: t0)
        for environment in [APNsEnvironment.sandbox, .sandbox] {
            XCTAssertNil(
                TokenAuthenticator.authenticate(
                    authorization: sbx, topic: "com.example.app", environment: environment,
                    mode: .strict, nowSeconds: t0, keys: F.keys, state: &sandboxOnly
                ).reason)
        }
        XCTAssertEqual(
            TokenAuthenticator.authenticate(
                authorization: sbx, topic: "com.example.app", environment: .production,
                mode: .strict, nowSeconds: t0, keys: F.keys, state: &sandboxOnly
            ).reason,
            .badEnvironmentKeyIDInToken)
        XCTAssertEqual(sandboxOnly.repeatsAnswered, 1)

        // Asked directly: answered without a check only when nothing can change.
        var fresh = TokenConnectionState()
        func quick(_ authorization: String?, _ mode: AuthMode) -> AuthOutcome? {
            fresh.quickOutcome(
                authorization: authorization, topic: "com.example.app", environment: .sandbox, mode: mode,
                nowSeconds: t0, keys: F.keys)
        }
        XCTAssertEqual(
            quick(nil, .permissive), AuthOutcome(reason: nil, identity: AuthIdentity(kind: .none, verdict: "no-token")))
        XCTAssertNil(quick(nil, .strict), "strict: MissingProviderToken is decided by authenticate")
        XCTAssertNil(quick(a, .strict), "a token never accepted on this connection")
        XCTAssertFalse(fresh.isBound)
    }

    /// A caller that keeps the state only for accepted pushes still keeps what rejected ones
    /// verified, and nothing else.
    func testChecksOfARejectedPushAreKeptWithoutItsBindings() {
        var connection = TokenConnectionState()
        func push(_ authorization: String, at offset: Double, accept: Bool = true) -> Reason? {
            var copy = connection
            let outcome = TokenAuthenticator.authenticate(
                authorization: authorization, topic: "com.example.app",
                environment: .sandbox, mode: .strict, nowSeconds: t0 + offset,
                keys: F.keys, state: &copy)
            if outcome.reason == nil && accept { connection = copy } else { connection.keepChecks(of: copy) }
            return outcome.reason
        }
        let expired = F.bearer("TEAMUNI001", iat: t0 - 4000)
        for second in 0..<5 { XCTAssertEqual(push(expired, at: Double(second)), .expiredProviderToken) }
        XCTAssertEqual(connection.verifications, 1, "the expired token is verified once, not per push")
        XCTAssertFalse(connection.isBound)

        // Accepted by authentication but refused for another reason (a bad device token, say).
        let fresh = F.bearer("TEAMUNI001", iat: t0)
        XCTAssertNil(push(fresh, at: 10, accept: false))
        XCTAssertFalse(connection.isBound, "nothing is bound by a push that was not accepted")
        XCTAssertEqual(connection.verifications, 2)
        XCTAssertNil(push(fresh, at: 11))
        XCTAssertEqual(connection.verifications, 2, "the token checked for the refused push is not verified again")
        XCTAssertTrue(connection.isBound)
    }
}
