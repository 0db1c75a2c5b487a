import APNsAuth
import APNsCore
import Foundation
import XCTest

@testable import MockAPNs

/// `ConnectionState.authorizationResult` reuses the previous result only for an outcome that
/// would be recorded alike: the same bytes and the same bits, not merely `==`.
final class ConnectionStateTests: XCTestCase {
    private func state() -> ConnectionState {
        let listener = APNsRequestHandler.Listener(name: "sandbox", environment: .sandbox, authMode: .strict)
        return ConnectionState(
            listener: listener,
            info: ConnectionInfo(
                id: 1, listener: "sandbox", environment: .sandbox,
                peer: "127.0.0.1:1"))
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
            XCTAssertTrue(try XCTUnwrap(identity.keyId).utf8.elementsEqual(try XCTUnwrap(second.identity.keyID).utf8))
            XCTAssertTrue(try XCTUnwrap(identity.teamId).utf8.elementsEqual(try XCTUnwrap(second.identity.teamID).utf8))
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
        XCTAssertEqual(a.identity.keyId, "KEY0K")
        XCTAssertTrue(
            state.authorizationResult(for: first, accepted: tokenA).identity.keyId!.utf8.elementsEqual("KEY0K".utf8))
        // Another accepted token whose kid differs only canonically: its own result.
        let b = state.authorizationResult(for: second, accepted: tokenB)
        XCTAssertTrue(b.identity.keyId!.utf8.elementsEqual("KEY0\u{212A}".utf8))
        XCTAssertTrue(
            state.authorizationResult(for: second, accepted: tokenB).identity.keyId!.utf8.elementsEqual(
                "KEY0\u{212A}".utf8))
        // No accepted object (a full check): compared by bytes.
        XCTAssertTrue(state.authorizationResult(for: first).identity.keyId!.utf8.elementsEqual("KEY0K".utf8))
    }
}
