import APNsCore
import Devices
import XCTest

@testable import ControlAPI
@testable import Recording
@testable import TestFixtures

/// `GET /v1/deliveries/{seq}/preview` (docs/console.md §4): the device model's decision for an
/// accepted push on a virtual device, in its own or another app state, or on a default device;
/// nothing is delivered.
final class ControlAPIDevicePreviewTests: XCTestCase {
    private typealias F = StoreFixtures
    static let token = String(repeating: "ab", count: 32)

    private func makeAPI() throws -> ControlAPI {
        let api = ControlAPI(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(), status: { F.status() })
        let (status, json) = api.call(
            "PUT", "/v1/devices/\(Self.token)",
            body: #"{"environment":"sandbox","topic":"com.example.app","appState":"background","#
                + #""categories":[{"identifier":"MSG","actions":[{"identifier":"LIKE","title":"Like"}]}]}"#)
        XCTAssertEqual(status, 201, "\(json)")
        api.store.append(
            F.record(
                token: Self.token, payload: Array(#"{"aps":{"alert":{"title":"T","body":"B"},"category":"MSG"}}"#.utf8))
        )
        api.store.append(F.record(token: Self.token, status: 400, reason: .badDeviceToken))
        return api
    }

    private func reaction(_ json: [String: Any]) -> [String: Any] { json["reaction"] as? [String: Any] ?? [:] }

    func testTheDeviceModelDecidesForTheDeviceAndTheAppStateChosen() throws {
        let api = try makeAPI()
        var (status, json) = api.call("GET", "/v1/deliveries/1/preview?device=\(Self.token.uppercased())")
        XCTAssertEqual(status, 200, "\(json)")
        XCTAssertEqual(json["device"] as? String, Self.token)
        XCTAssertEqual(json["appState"] as? String, "background", "the device's own")
        XCTAssertEqual((reaction(json)["presentation"] as? [String: Any])?["banner"] as? Bool, true)
        XCTAssertEqual((reaction(json)["actions"] as? [[String: Any]])?.first?["identifier"] as? String, "LIKE")

        (status, json) = api.call("GET", "/v1/deliveries/1/preview?device=\(Self.token)&appState=foreground")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["appState"] as? String, "foreground")
        XCTAssertEqual((reaction(json)["presentation"] as? [String: Any])?["shown"] as? Bool, false)
        XCTAssertEqual((reaction(json)["callbacks"] as? [[String: Any]])?.first?["name"] as? String, "willPresent")

        (status, json) = api.call("GET", "/v1/deliveries/1/preview")
        XCTAssertEqual(status, 200)
        XCTAssertTrue(json["device"] is NSNull, "\(json)")
        XCTAssertEqual((reaction(json)["actions"] as? [Any])?.count, 0, "a default device registered no category")
        let device = api.call("GET", "/v1/devices/\(Self.token)").1
        XCTAssertEqual((device["delivered"] as? [Any])?.count, 0, "nothing delivered: \(device)")
        XCTAssertEqual(device["appState"] as? String, "background", "nor the app state changed")
    }

    func testRefusals() throws {
        let api = try makeAPI()
        XCTAssertEqual(api.call("GET", "/v1/deliveries/2/preview").0, 409, "APNs refused it")
        XCTAssertEqual(api.call("GET", "/v1/deliveries/9/preview").0, 404)
        XCTAssertEqual(api.call("GET", "/v1/deliveries/0/preview").0, 400)
        XCTAssertEqual(api.call("GET", "/v1/deliveries/1/preview?device=\(String(repeating: "cd", count: 32))").0, 404)
        let (status, json) = api.call("GET", "/v1/deliveries/1/preview?appState=asleep")
        XCTAssertEqual(status, 400)
        XCTAssertTrue((json["error"] as? String)?.contains("foreground") == true, "\(json)")
    }
}
