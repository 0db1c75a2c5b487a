import APNsAuth
import APNsCore
import XCTest

/// One push on a fresh connection: every rule of docs/apns-behaviour.md §2, §4, §9 as a row.
final class TokenAuthenticatorTests: XCTestCase {
    private typealias F = AuthFixtures
    private static let now = F.now

    private struct Row {
        let name: String
        var mode: AuthMode = .strict
        let authorization: String?
        var topic: String? = "com.example.app"
        var environment: APNsEnvironment = .sandbox
        var certificate = false
        var keys: KeyStore = F.keys
        let reason: Reason?
        let verdict: String
    }

    private static func craft(_ header: String, _ claims: String, by keyID: String = "TEAMUNI001", der: Bool = false)
        -> String
    {
        "bearer " + F.crafted(header: header, claims: claims, signedBy: keyID, der: der)
    }

    private static func tampered() -> String {
        let parts = F.token("TEAMUNI001").split(separator: ".").map(String.init)
        let claims = F.base64url(Array(#"{"iss":"TEAM000001","iat":\#(Int(now))}"#.utf8))
        return "bearer " + parts[0] + "." + claims + "." + parts[2]
    }

    private static let rows: [Row] = {
        let n = Int(now)
        let uni = #"{"alg":"ES256","kid":"TEAMUNI001"}"#
        return [
            // Missing / not bearer
            Row(
                name: "strict, no header", authorization: nil, reason: .missingProviderToken,
                verdict: "rejected: no provider token"),
            Row(name: "strict, empty header", authorization: "", reason: .missingProviderToken, verdict: "rejected"),
            Row(
                name: "strict, bare bearer", authorization: "bearer ", reason: .missingProviderToken,
                verdict: "rejected"),
            Row(
                name: "strict, Basic scheme", authorization: "Basic dXNlcg==", reason: .missingProviderToken,
                verdict: "rejected"),
            Row(
                name: "permissive, Basic scheme", mode: .permissive, authorization: "Basic dXNlcg==",
                reason: .missingProviderToken, verdict: "rejected"),
            Row(name: "permissive, no header", mode: .permissive, authorization: nil, reason: nil, verdict: "no-token"),
            Row(
                name: "permissive, empty header", mode: .permissive, authorization: " ", reason: nil,
                verdict: "no-token"),
            Row(name: "none, garbage", mode: .none, authorization: "garbage", reason: nil, verdict: "unchecked"),
            Row(
                name: "certificate connection ignores authorization", authorization: "garbage", certificate: true,
                reason: nil, verdict: "certificate-authenticated"),
            Row(
                name: "certificate connection, no token", authorization: nil, certificate: true,
                reason: nil, verdict: "certificate-authenticated"),
            // Well-formed and verified
            Row(
                name: "team key, raw signature", authorization: F.bearer("TEAMUNI001"), reason: nil, verdict: "verified"
            ),
            Row(
                name: "Bearer capitalised", authorization: "Bearer " + F.token("TEAMUNI001"), reason: nil,
                verdict: "verified"),
            Row(
                name: "DER signature", authorization: craft(uni, #"{"iss":"TEAM000001","iat":\#(n)}"#, der: true),
                reason: nil, verdict: "verified"),
            Row(
                name: "iat float", authorization: craft(uni, #"{"iss":"TEAM000001","iat":\#(n).25}"#), reason: nil,
                verdict: "verified"),
            Row(
                name: "iat numeric string", authorization: craft(uni, #"{"iss":"TEAM000001","iat":"\#(n)"}"#),
                reason: nil, verdict: "verified"),
            Row(
                name: "typ header, extra claims, spaces",
                authorization: craft(
                    #"{ "typ": "JWT", "alg": "ES256", "kid": "TEAMUNI001" }"#,
                    #"{ "iss": "TEAM000001", "iat": \#(n), "aud": "x" }"#),
                reason: nil, verdict: "verified"),
            Row(
                name: "permissive, configured key", mode: .permissive, authorization: F.bearer("TEAMUNI001"),
                reason: nil, verdict: "verified"),
            Row(
                name: "no topic: scope not checked", authorization: F.bearer("TOPICA0001"), topic: nil, reason: nil,
                verdict: "verified"),
            // InvalidProviderToken: form
            Row(
                name: "not a JWT", authorization: "bearer abc", reason: .invalidProviderToken,
                verdict: "rejected: malformed token"),
            Row(
                name: "alg HS256",
                authorization: craft(#"{"alg":"HS256","kid":"TEAMUNI001"}"#, #"{"iss":"TEAM000001","iat":\#(n)}"#),
                reason: .invalidProviderToken, verdict: "rejected: malformed token: alg is HS256"),
            Row(
                name: "no kid", authorization: craft(#"{"alg":"ES256"}"#, #"{"iss":"TEAM000001","iat":\#(n)}"#),
                reason: .invalidProviderToken, verdict: "rejected: malformed token: kid is missing"),
            Row(
                name: "no iss", authorization: craft(uni, #"{"iat":\#(n)}"#),
                reason: .invalidProviderToken, verdict: "rejected: malformed token: iss is missing"),
            Row(
                name: "no iat", authorization: craft(uni, #"{"iss":"TEAM000001"}"#),
                reason: .invalidProviderToken, verdict: "rejected: malformed token: iat is missing"),
            Row(
                name: "non-numeric iat", authorization: craft(uni, #"{"iss":"TEAM000001","iat":"soon"}"#),
                reason: .invalidProviderToken, verdict: "rejected: malformed token"),
            Row(
                name: "permissive, malformed", mode: .permissive, authorization: "bearer abc",
                reason: .invalidProviderToken, verdict: "rejected: malformed token"),
            // InvalidProviderToken: key and signature
            Row(
                name: "strict, unknown key", authorization: F.bearer("UNLISTED01"), reason: .invalidProviderToken,
                verdict: "rejected: unknown key UNLISTED01"),
            Row(
                name: "strict, key removed from store", authorization: F.bearer("TEAMUNI001"),
                keys: F.store("TEAMSBX001"),
                reason: .invalidProviderToken, verdict: "rejected: unknown key"),
            Row(
                name: "permissive, unknown key", mode: .permissive, authorization: F.bearer("UNLISTED01"), reason: nil,
                verdict: "unknown-key-accepted"),
            Row(
                name: "signed by another key",
                authorization: craft(uni, #"{"iss":"TEAM000001","iat":\#(n)}"#, by: "TEAMSBX001"),
                reason: .invalidProviderToken, verdict: "rejected: bad signature"),
            Row(
                name: "permissive, bad signature", mode: .permissive,
                authorization: craft(uni, #"{"iss":"TEAM000001","iat":\#(n)}"#, by: "TEAMSBX001"),
                reason: .invalidProviderToken, verdict: "rejected: bad signature"),
            Row(
                name: "tampered claims", authorization: tampered(), reason: .invalidProviderToken,
                verdict: "rejected: bad signature"),
            Row(
                name: "iss is not the key's team", authorization: F.bearer("TEAMUNI001", team: F.team2),
                reason: .invalidProviderToken, verdict: "rejected: iss TEAM000002 is not key TEAMUNI001's team"),
            // Times
            Row(
                name: "iat 3600 s old", authorization: F.bearer("TEAMUNI001", iat: now - 3600), reason: nil,
                verdict: "verified"),
            Row(
                name: "iat 3601 s old", authorization: F.bearer("TEAMUNI001", iat: now - 3601),
                reason: .expiredProviderToken,
                verdict: "rejected: iat is 3601 s old"),
            Row(
                name: "permissive, unknown key expired", mode: .permissive,
                authorization: F.bearer("UNLISTED01", iat: now - 7200),
                reason: .expiredProviderToken, verdict: "rejected"),
            Row(
                name: "iat 60 s ahead", authorization: F.bearer("TEAMUNI001", iat: now + 60), reason: nil,
                verdict: "verified"),
            Row(
                name: "iat 61 s ahead", authorization: F.bearer("TEAMUNI001", iat: now + 61),
                reason: .invalidProviderToken,
                verdict: "rejected: iat is 61 s in the future"),
            Row(
                name: "permissive, unknown key from the future", mode: .permissive,
                authorization: F.bearer("UNLISTED01", iat: now + 3600), reason: .invalidProviderToken,
                verdict: "rejected"),
            // Environment
            Row(
                name: "sandbox key on sandbox", authorization: F.bearer("TEAMSBX001"), reason: nil, verdict: "verified"),
            Row(
                name: "sandbox key on production", authorization: F.bearer("TEAMSBX001"), environment: .production,
                reason: .badEnvironmentKeyIDInToken, verdict: "rejected: key TEAMSBX001 is not valid for production"),
            Row(
                name: "production key on sandbox", authorization: F.bearer("TEAMPRD001"),
                reason: .badEnvironmentKeyIDInToken, verdict: "rejected"),
            Row(
                name: "production key on production", authorization: F.bearer("TEAMPRD001"), environment: .production,
                reason: nil, verdict: "verified"),
            Row(
                name: "dual-environment key on production", authorization: F.bearer("TEAMUNI001"),
                environment: .production,
                reason: nil, verdict: "verified"),
            // Scope
            Row(
                name: "team key, any topic", authorization: F.bearer("TEAMUNI001"), topic: "org.anything.else",
                reason: nil, verdict: "verified"),
            Row(
                name: "topic key, listed topic", authorization: F.bearer("TOPICA0001"), reason: nil, verdict: "verified"
            ),
            Row(
                name: "topic key, voip form", authorization: F.bearer("TOPICA0001"), topic: "com.example.app.voip",
                reason: nil, verdict: "verified"),
            Row(
                name: "topic key, liveactivity form", authorization: F.bearer("TOPICA0001"),
                topic: "com.example.app.push-type.liveactivity", reason: nil, verdict: "verified"),
            Row(
                name: "topic key, complication form", authorization: F.bearer("TOPICA0001"),
                topic: "com.example.app.complication", reason: nil, verdict: "verified"),
            Row(
                name: "topic key, other topic", authorization: F.bearer("TOPICA0001"), topic: "com.example.other",
                reason: .invalidProviderToken,
                verdict: "rejected: topic com.example.other is outside key TOPICA0001's scope"),
            Row(
                name: "topic key, prefix is not a suffix form", authorization: F.bearer("TOPICA0001"),
                topic: "com.example.application",
                reason: .invalidProviderToken, verdict: "rejected: topic"),
            Row(
                name: "topic key, unknown suffix", authorization: F.bearer("TOPICA0001"),
                topic: "com.example.app.widgetsx",
                reason: .invalidProviderToken, verdict: "rejected: topic"),
            Row(
                name: "permissive, unknown key: scope unknown", mode: .permissive,
                authorization: F.bearer("UNLISTED01"),
                topic: "org.anything", reason: nil, verdict: "unknown-key-accepted"),
        ]
    }()

    func testRows() {
        for row in Self.rows {
            var state = TokenConnectionState()
            let outcome = TokenAuthenticator.authenticate(
                authorization: row.authorization, topic: row.topic,
                environment: row.environment, mode: row.mode,
                certificateAuthenticated: row.certificate,
                nowSeconds: Self.now, keys: row.keys, state: &state)
            XCTAssertEqual(outcome.reason, row.reason, row.name)
            XCTAssertTrue(
                outcome.identity.verdict.hasPrefix(row.verdict), "\(row.name): verdict \(outcome.identity.verdict)")
            XCTAssertEqual(outcome.isAccepted, row.reason == nil, row.name)
            XCTAssertEqual(state.isBound, row.reason == nil && outcome.identity.kind == .token, row.name)
            XCTAssertFalse(
                outcome.identity.verdict.contains(
                    row.authorization?.split(separator: ".").last.map(String.init) ?? "\u{0}"),
                "\(row.name): the record must never carry the signature")
        }
    }

    func testIdentityForRecords() {
        var state = TokenConnectionState()
        let outcome = TokenAuthenticator.authenticate(
            authorization: F.bearer("TOPICB0001", iat: Self.now - 5), topic: "com.example.other",
            environment: .production, mode: .strict, nowSeconds: Self.now,
            keys: F.keys, state: &state)
        XCTAssertEqual(
            outcome,
            AuthOutcome(
                reason: nil,
                identity: AuthIdentity(
                    kind: .token, keyID: "TOPICB0001",
                    teamID: "TEAM000001", issuedAt: Self.now - 5,
                    verdict: "verified")))
        XCTAssertEqual(state.boundTeamID, "TEAM000001")
        XCTAssertEqual(state.boundKeyID, "TOPICB0001")
        XCTAssertEqual(state.currentTokenSince, Self.now)
    }

    func testPolicyIsConfigurable() {
        var state = TokenConnectionState()
        let policy = TokenPolicy(maximumAge: 60, allowedFutureSkew: 0, minimumRefreshInterval: 0)
        func reason(_ iat: Double) -> Reason? {
            TokenAuthenticator.authenticate(
                authorization: F.bearer("TEAMUNI001", iat: iat), topic: "com.example.app",
                environment: .sandbox, mode: .strict, nowSeconds: Self.now, keys: F.keys,
                policy: policy, state: &state
            ).reason
        }
        XCTAssertEqual(reason(Self.now - 61), .expiredProviderToken)
        XCTAssertEqual(reason(Self.now + 1), .invalidProviderToken)
        XCTAssertNil(reason(Self.now - 60))
        XCTAssertNil(reason(Self.now - 30))  // a new token at once: minimumRefreshInterval 0
    }
}
