import APNsAuth
import APNsCore
import ControlAPI
import Foundation
import TestSupport
import XCTest

@testable import MockAPNs

/// `ListenerTokenChecker` (docs/console.md §6): a provider token checked by the listener's own
/// authenticator on the configured keys and the server clock.
final class ListenerTokenCheckerTests: XCTestCase {
    private let now = 1_796_028_543.0

    private func makeChecker() throws -> (ListenerTokenChecker, ProviderTokenSigner) {
        let pem = try String(
            contentsOfFile: RepositoryPaths.path("fixtures/auth/AuthKey_TEAMUNI001.p8"), encoding: .utf8)
        let privateKey = try ES256PrivateKey(pem: pem)
        let key = ProviderKey(
            keyID: "TEAMUNI001", teamID: "TEAMUNI0T1", publicKey: try privateKey.publicKey(), scope: .team)
        let clock = ServerClock(offsetSeconds: now - Date().timeIntervalSince1970)
        let checker = ListenerTokenChecker(
            targets: [.init(name: "default", environment: .sandbox), .init(name: "prod", environment: .production)],
            keys: KeyStore([key]), clock: clock)
        return (checker, ProviderTokenSigner(key: privateKey, keyID: "TEAMUNI001", teamID: "TEAMUNI0T1"))
    }

    func testAValidTokenPassesAndItsPartsAreShown() throws {
        let (checker, signer) = try makeChecker()
        let check = try XCTUnwrap(
            checker.check(authorization: try signer.authorization(issuedAt: Int64(now) - 60), topic: nil, listener: nil)
        )
        XCTAssertNil(check.reason, check.verdict)
        XCTAssertEqual(check.listener, "default")
        XCTAssertEqual(check.environment, .sandbox)
        XCTAssertEqual(check.keyID, "TEAMUNI001")
        XCTAssertEqual(check.teamID, "TEAMUNI0T1")
        XCTAssertEqual(check.issuedAt, now - 60)
        XCTAssertTrue(check.keyConfigured)
        XCTAssertEqual(check.maximumAgeSeconds, 3600)
        XCTAssertEqual(check.minimumRefreshSeconds, 1200)
        XCTAssertEqual(checker.check(authorization: "bearer x", topic: nil, listener: "prod")?.listener, "prod")
        XCTAssertNil(checker.check(authorization: "bearer x", topic: nil, listener: "nope"))
    }

    func testABadSignatureAnOldTokenAndAnUnknownKeyAreRejected() throws {
        let (checker, signer) = try makeChecker()
        let good = try signer.authorization(issuedAt: Int64(now))
        let tampered = String(good.dropLast(4)) + (good.hasSuffix("AAAA") ? "BBBB" : "AAAA")
        let bad = try XCTUnwrap(checker.check(authorization: tampered, topic: nil, listener: nil))
        XCTAssertEqual(bad.reason, .invalidProviderToken)
        XCTAssertEqual(bad.verdict, "rejected: bad signature")
        let old = try XCTUnwrap(
            checker.check(
                authorization: try signer.authorization(issuedAt: Int64(now) - 3700), topic: nil, listener: nil))
        XCTAssertEqual(old.reason, .expiredProviderToken)
        let pem = try String(
            contentsOfFile: RepositoryPaths.path("fixtures/auth/AuthKey_OTHERTEAM1.p8"), encoding: .utf8)
        let other = ProviderTokenSigner(key: try ES256PrivateKey(pem: pem), keyID: "OTHERTEAM1", teamID: "OTHERTEAM1")
        let unknown = try XCTUnwrap(
            checker.check(authorization: try other.authorization(issuedAt: Int64(now)), topic: nil, listener: nil))
        XCTAssertEqual(unknown.reason, .invalidProviderToken)
        XCTAssertFalse(unknown.keyConfigured)
        XCTAssertEqual(unknown.keyID, "OTHERTEAM1")
    }
}
