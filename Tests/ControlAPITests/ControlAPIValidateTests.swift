import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import JSONSupport
@testable import Recording
@testable import TestFixtures

/// `POST /v1/validate/provider-token` (docs/console.md §6) over a fake checker.
final class ControlAPIValidateTests: XCTestCase {
    private final class FakeChecker: ProviderTokenChecker, @unchecked Sendable {
        var asked: [(String, String?, String?)] = []
        var issuedAt: Double = 1_000_000
        func check(authorization: String, topic: String?, listener: String?) -> ProviderTokenCheck? {
            asked.append((authorization, topic, listener))
            guard listener != "nope" else { return nil }
            return ProviderTokenCheck(
                listener: listener ?? "default", environment: .sandbox, reason: .expiredProviderToken,
                verdict: "rejected: iat is 3700 s old (maximum 3600 s)", keyID: "K", teamID: "T",
                issuedAt: issuedAt, keyConfigured: true, maximumAgeSeconds: 3600, minimumRefreshSeconds: 1200)
        }
    }

    func testWholeSecondsOfAnyIssuedAtNeverTraps() {
        // A token's iat of 1e308 stopped the server (Double to Int64); such times are null.
        XCTAssertEqual(ControlAPI.wholeSeconds(1e308), .null)
        XCTAssertEqual(ControlAPI.wholeSeconds(-1e300), .null)
        XCTAssertEqual(ControlAPI.wholeSeconds(.nan), .null)
        XCTAssertEqual(ControlAPI.wholeSeconds(.infinity), .null)
        XCTAssertEqual(ControlAPI.wholeSeconds(1_000_000.9), .int(1_000_000))
        XCTAssertEqual(ControlAPI.wholeSeconds(-2.5), .int(-3))
        let checker = FakeChecker()
        checker.issuedAt = 1e308
        let api = ControlAPI(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(), tokenChecker: checker,
            status: { StoreFixtures.status() })
        let (status, json) = api.call("POST", "/v1/validate/provider-token", body: #"{"token": "a.b.c"}"#)
        XCTAssertEqual(status, 200)
        XCTAssertTrue(
            json["issuedAt"] is NSNull && json["ageSeconds"] is NSNull && json["expiresAt"] is NSNull, "\(json)")
    }

    func testTheCheckIsAnsweredWithTheTokensTimes() throws {
        let checker = FakeChecker()
        let clock = ServerClock(offsetSeconds: 1_003_700 - Date().timeIntervalSince1970)
        let api = ControlAPI(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(), credentialClock: clock,
            tokenChecker: checker, status: { StoreFixtures.status() })
        let (status, json) = api.call(
            "POST", "/v1/validate/provider-token", body: #"{"token": " a.b.c ", "topic": "com.a", "listener": "l"}"#)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(checker.asked.first?.0, "bearer a.b.c")
        XCTAssertEqual(checker.asked.first?.1, "com.a")
        XCTAssertEqual(checker.asked.first?.2, "l")
        XCTAssertEqual(json["accepted"] as? Bool, false)
        XCTAssertEqual(json["reason"] as? String, "ExpiredProviderToken")
        XCTAssertEqual(json["listener"] as? String, "l")
        XCTAssertEqual(json["keyId"] as? String, "K")
        XCTAssertEqual(json["issuedAt"] as? Int, 1_000_000)
        XCTAssertEqual(json["expiresAt"] as? Int, 1_003_600)
        XCTAssertEqual(json["refreshAllowedAt"] as? Int, 1_001_200)
        let age = try XCTUnwrap(json["ageSeconds"] as? Int)
        XCTAssertTrue((3699...3701).contains(age), "\(age)")
        _ = api.call("POST", "/v1/validate/provider-token", body: #"{"token": "Bearer x.y.z"}"#)
        XCTAssertEqual(checker.asked.last?.0, "Bearer x.y.z")
        XCTAssertNil(checker.asked.last?.2)
    }

    func testErrors() {
        let api = ControlAPI(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(), tokenChecker: FakeChecker(),
            status: { StoreFixtures.status() })
        XCTAssertEqual(
            api.call("POST", "/v1/validate/provider-token", body: #"{"token": "a", "listener": "nope"}"#).0, 404)
        let (status, json) = api.call("POST", "/v1/validate/provider-token", body: #"{"tokn": "a"}"#)
        XCTAssertEqual(status, 400)
        XCTAssertTrue((json["error"] as? String ?? "").contains("tokn"), "\(json)")
        let bare = ControlAPI(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(), status: { StoreFixtures.status() })
        XCTAssertEqual(bare.call("POST", "/v1/validate/provider-token", body: #"{"token": "a"}"#).0, 503)
    }
}
