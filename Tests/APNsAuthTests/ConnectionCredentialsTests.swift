import APNsCore
import Foundation
import XCTest

@testable import APNsAuth

/// `ConnectionCredentials`: the credential check the gateway asks per push. Its
/// `authorizationResult` reuses the previous result only for an outcome that would be recorded
/// alike: the same bytes and the same bits, not merely `==`; token state changes only when the
/// gateway settles a push as accepted.
final class ConnectionCredentialsTests: XCTestCase {
    private typealias F = AuthFixtures

    private func state(mode: AuthMode = .strict) -> ConnectionCredentials {
        ConnectionCredentials(
            mode: mode, environment: .sandbox, keys: F.keys,
            clock: ServerClock(offsetSeconds: F.now - Date().timeIntervalSince1970))
    }

    private func push(authorization: String?) -> HTTP2Request {
        HTTP2Request(
            method: "POST", path: "/3/device/" + String(repeating: "0f", count: 32),
            headers: [HeaderField(name: "apns-topic", value: "com.example.app")]
                + (authorization.map { [HeaderField(name: "authorization", value: $0)] } ?? []),
            body: Array(#"{"aps":{}}"#.utf8))
    }

    private let verdict = ValidationResult(topic: "com.example.app")

    /// `none` checks nothing; `permissive` without a token answers no-token and binds nothing.
    func testNoCheckUnderNoneAndNoTokenUnderPermissive() {
        XCTAssertNil(state(mode: .none).check(verdict, of: push(authorization: F.bearer("TEAMUNI001"))))
        let permissive = state(mode: .permissive)
        let result = permissive.check(verdict, of: push(authorization: nil))
        XCTAssertEqual(result?.reason, nil)
        XCTAssertEqual(result?.identity.verdict, "no-token")
        permissive.settle(accepted: true)
        XCTAssertFalse(permissive.token.isBound)
        XCTAssertEqual(permissive.summary, "none")
    }

    /// The check's token state is adopted only when the gateway settles the push as accepted;
    /// a refused push keeps the verification it paid for, not the binding.
    func testTokenIsBoundOnlyWhenSettledAsAccepted() throws {
        let credentials = state()
        let bearer = F.bearer("TEAMUNI001")
        let first = try XCTUnwrap(credentials.check(verdict, of: push(authorization: bearer)))
        XCTAssertNil(first.reason, first.identity.verdict)
        credentials.settle(accepted: false)
        XCTAssertFalse(credentials.token.isBound, "refused by a later check: nothing bound")
        XCTAssertEqual(credentials.token.verifications, 1, "the verification is kept")
        _ = credentials.check(verdict, of: push(authorization: bearer))
        credentials.settle(accepted: true)
        XCTAssertEqual(credentials.token.boundTeamID, F.team1)
        XCTAssertEqual(credentials.token.verifications, 1, "not verified again")
        XCTAssertEqual(credentials.summary, "token TEAMUNI001 " + F.team1)
        // A repeat of the accepted token changes nothing, whatever the settlement.
        _ = credentials.check(verdict, of: push(authorization: bearer))
        credentials.settle(accepted: false)
        XCTAssertEqual(credentials.token.boundTeamID, F.team1)
    }

    /// No `authorization` header on a strict listener: MissingProviderToken.
    func testMissingTokenIsRejected() {
        XCTAssertEqual(state().check(verdict, of: push(authorization: nil))?.reason, .missingProviderToken)
    }

    private func rejected(kid: String, iss: String = "TEAM000001", iat: Double = 1_700_000_000) -> AuthOutcome {
        AuthOutcome(
            reason: .invalidProviderToken,
            identity: AuthIdentity(
                kind: .token, keyID: kid, teamID: iss, issuedAt: iat,
                verdict: "rejected: unknown key \(kid)"))
    }

    func testOutcomesEqualOnlyUnderSwiftEqualityGetTheirOwnResult() throws {
        let pairs: [(AuthOutcome, AuthOutcome)] = [
            (rejected(kid: "KEY\u{e9}"), rejected(kid: "KEYe\u{301}")),
            (rejected(kid: "KEY0K"), rejected(kid: "KEY0\u{212A}")),
            (rejected(kid: "KEY01", iss: "TEAM00000K"), rejected(kid: "KEY01", iss: "TEAM00000\u{212A}")),
            (rejected(kid: "KEY01", iat: 0), rejected(kid: "KEY01", iat: -0.0)),
        ]
        for (first, second) in pairs {
            XCTAssertEqual(first, second, "the pair is == for Swift")
            let state = state()
            _ = state.authorizationResult(for: first)
            let identity = state.authorizationResult(for: second).identity
            XCTAssertTrue(try XCTUnwrap(identity.keyID).utf8.elementsEqual(try XCTUnwrap(second.identity.keyID).utf8))
            XCTAssertTrue(try XCTUnwrap(identity.teamID).utf8.elementsEqual(try XCTUnwrap(second.identity.teamID).utf8))
            XCTAssertEqual(identity.issuedAt?.bitPattern, second.identity.issuedAt?.bitPattern)
            XCTAssertTrue(identity.verdict.utf8.elementsEqual(second.identity.verdict.utf8))
        }
    }

    /// A repeat of the last accepted token is recognised by its accepted-token object: the same
    /// object reuses the result, another object (a new token accepted) is compared as before.
    func testAcceptedTokenObjectDecidesReuse() {
        let state = state()
        let first = AuthOutcome(
            reason: nil,
            identity: AuthIdentity(
                kind: .token, keyID: "KEY0K", teamID: "TEAM000001",
                issuedAt: 1, verdict: "verified"))
        let second = AuthOutcome(
            reason: nil,
            identity: AuthIdentity(
                kind: .token, keyID: "KEY0\u{212A}", teamID: "TEAM000001",
                issuedAt: 1, verdict: "verified"))
        let tokenA = NSObject(), tokenB = NSObject()
        let a = state.authorizationResult(for: first, accepted: tokenA)
        XCTAssertEqual(a.identity.keyID, "KEY0K")
        XCTAssertTrue(
            state.authorizationResult(for: first, accepted: tokenA).identity.keyID!.utf8.elementsEqual("KEY0K".utf8))
        // Another accepted token whose kid differs only canonically: its own result.
        let b = state.authorizationResult(for: second, accepted: tokenB)
        XCTAssertTrue(b.identity.keyID!.utf8.elementsEqual("KEY0\u{212A}".utf8))
        XCTAssertTrue(
            state.authorizationResult(for: second, accepted: tokenB).identity.keyID!.utf8.elementsEqual(
                "KEY0\u{212A}".utf8))
        // No accepted object (a full check): compared by bytes.
        XCTAssertTrue(state.authorizationResult(for: first).identity.keyID!.utf8.elementsEqual("KEY0K".utf8))
    }
}
