import XCTest

@testable import APNsAuth
@testable import APNsCore

/// The control API's test key (`ProviderTestKey`, docs/console.md §6): a fresh P-256 key whose
/// tokens a strict listener accepts once the key is registered, and which never replaces a
/// configured key of its ID.
final class ProviderTestKeyTests: XCTestCase {
    static let now = 1_800_000_000.0

    private func outcome(_ token: String, keys: KeyStore, environment: APNsEnvironment = .sandbox) -> AuthOutcome {
        var state = TokenConnectionState()
        return TokenAuthenticator.authenticate(
            authorization: "bearer " + token, topic: "com.example.app", environment: environment, mode: .strict,
            nowSeconds: Self.now, keys: keys, state: &state)
    }

    func testItsTokensPassStrictChecksOnceRegistered() throws {
        let key = try ProviderTestKey.generate()
        let token = try key.signer.token(issuedAt: Int64(Self.now) - 10)
        XCTAssertEqual(outcome(token, keys: .empty).reason, .invalidProviderToken, "unknown until registered")
        let keys = try XCTUnwrap(key.registered(in: .empty))
        XCTAssertNil(outcome(token, keys: keys).reason)
        XCTAssertNil(outcome(token, keys: keys, environment: .production).reason, "both environments")
        XCTAssertEqual(keys[ProviderTestKey.keyID]?.teamID, ProviderTestKey.teamID)
        XCTAssertEqual(
            outcome(try key.signer.token(issuedAt: Int64(Self.now) - 3700), keys: keys).reason,
            .expiredProviderToken, "Apple's hour holds for it as for any key")
    }

    func testEachServerHasAKeyOfItsOwn() throws {
        let first = try ProviderTestKey.generate()
        let second = try ProviderTestKey.generate()
        XCTAssertNotEqual(first.providerKey.publicKey, second.providerKey.publicKey)
        let keys = try XCTUnwrap(second.registered(in: .empty))
        XCTAssertEqual(
            outcome(try first.signer.token(issuedAt: Int64(Self.now)), keys: keys).reason, .invalidProviderToken,
            "another server's test key is not this one's")
    }

    func testAConfiguredKeyOfItsIDStaysAndNoTestKeyIsRegistered() throws {
        let key = try ProviderTestKey.generate()
        let configured = ProviderKey(
            keyID: ProviderTestKey.keyID, teamID: "TEAM000001", publicKey: try ES256PrivateKey.generate().publicKey(),
            scope: .team)
        XCTAssertNil(key.registered(in: KeyStore([configured])))
        let other = ProviderKey(
            keyID: "OTHER00001", teamID: "TEAM000001", publicKey: try ES256PrivateKey.generate().publicKey(),
            scope: .team)
        let keys = try XCTUnwrap(key.registered(in: KeyStore([other])))
        XCTAssertEqual(Set(keys.keys.keys), ["OTHER00001", ProviderTestKey.keyID], "the configured keys stay")
    }
}
