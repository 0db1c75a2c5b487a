import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import Recording
@testable import TestFixtures

/// `POST /v1/provider-tokens` (docs/console.md §6) over a fake minter: `iat` from the server
/// clock less `ageSeconds`, the token's parts, the bodies refused, 503 without a test key.
final class ControlAPIProviderTokensTests: XCTestCase {
    private final class FakeMinter: ProviderTokenMinter, @unchecked Sendable {
        let keyID = "CONSOLEKEY"
        let teamID = "MOCKAPNS00"
        var asked: [Int64] = []
        func token(issuedAt: Int64) -> String? {
            asked.append(issuedAt)
            return "h.\(issuedAt).s"
        }
    }

    private func makeAPI(minter: FakeMinter?, now: Double = 1_000_000.5) -> ControlAPI {
        ControlAPI(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(),
            credentialClock: ServerClock(offsetSeconds: now - Date().timeIntervalSince1970),
            tokenMinter: minter, status: { StoreFixtures.status() })
    }

    func testATokenIsIssuedByTheServerClock() throws {
        let minter = FakeMinter()
        let api = makeAPI(minter: minter)
        var (status, json) = api.call("POST", "/v1/provider-tokens")
        XCTAssertEqual(status, 200, "\(json)")
        XCTAssertEqual(minter.asked, [1_000_000], "the server clock's now, in whole seconds, for an empty body")
        XCTAssertEqual(json["token"] as? String, "h.1000000.s")
        XCTAssertEqual(json["authorization"] as? String, "bearer h.1000000.s")
        XCTAssertEqual(json["header"] as? [String: String], ["alg": "ES256", "kid": "CONSOLEKEY"])
        XCTAssertEqual((json["claims"] as? [String: Any])?["iss"] as? String, "MOCKAPNS00")
        XCTAssertEqual((json["claims"] as? [String: Any])?["iat"] as? Int, 1_000_000)
        XCTAssertEqual(json["keyId"] as? String, "CONSOLEKEY")
        XCTAssertEqual(json["teamId"] as? String, "MOCKAPNS00")
        XCTAssertEqual(json["expiresAt"] as? Int, 1_003_600)

        (status, json) = api.call("POST", "/v1/provider-tokens", body: #"{"ageSeconds": 3700}"#)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["issuedAt"] as? Int, 996_300)
        XCTAssertEqual(api.call("POST", "/v1/provider-tokens", body: "{}").0, 200)
    }

    func testBadBodiesAreRefusedNamingTheField() {
        let api = makeAPI(minter: FakeMinter())
        for (body, names) in [
            (#"{"ageSeconds": -1}"#, "ageSeconds"), (#"{"ageSeconds": 86401}"#, "ageSeconds"),
            (#"{"ageSeconds": 1.5}"#, "ageSeconds"), (#"{"age": 1}"#, "age"), ("[]", "body must be"),
            ("{", "not valid JSON"),
        ] {
            let (status, json) = api.call("POST", "/v1/provider-tokens", body: body)
            XCTAssertEqual(status, 400, body)
            XCTAssertTrue((json["error"] as? String)?.contains(names) == true, "\(body): \(json)")
        }
        XCTAssertEqual(api.call("GET", "/v1/provider-tokens").0, 405)
    }

    func testWithoutATestKeyTheAnswerIs503() {
        let (status, json) = makeAPI(minter: nil).call("POST", "/v1/provider-tokens")
        XCTAssertEqual(status, 503)
        XCTAssertTrue((json["error"] as? String)?.contains("test key") == true, "\(json)")
    }

    /// `/v1/health` says how each listener authenticates when the server tells.
    func testHealthListsEachListenersAuthentication() throws {
        let api = ControlAPI(store: DeliveryStore(capacity: 10), registry: DeviceRegistry()) {
            ControlStatus(
                version: "v", uptimeMilliseconds: 0, connectionsOpen: 0,
                listeners: [
                    .init(
                        name: "a", address: "https://127.0.0.1:1", environment: .sandbox, auth: "strict",
                        clientCertificates: true),
                    .init(name: "b", address: "https://127.0.0.1:2", environment: .production),
                ], workers: 1)
        }
        let listeners = try XCTUnwrap(api.call("GET", "/v1/health").1["listeners"] as? [[String: Any]])
        XCTAssertEqual(listeners[0]["auth"] as? String, "strict")
        XCTAssertEqual(listeners[0]["clientCertificates"] as? Bool, true)
        XCTAssertNil(listeners[1]["auth"], "left out when not told")
        XCTAssertNil(listeners[1]["clientCertificates"])
    }
}
