import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import JSONSupport
@testable import Recording
@testable import TestFixtures

/// A feedback service holding fixed entries.
private struct FixedFeedback: FeedbackSource {
    let entries: [FeedbackEntry]
    func pendingFeedback() -> [FeedbackEntry] { entries }
}

final class ControlAPIFeedbackTests: XCTestCase {
    private func get(_ api: ControlAPI, _ target: String = "/v1/feedback") -> ControlResponse {
        guard case .response(let response) = api.handle(ControlRequest(method: "GET", target: target, body: []))
        else {
            XCTFail("GET must answer at once")
            return ControlResponse(status: 0, body: [])
        }
        return response
    }

    func testListsWhatTheNextReadWouldSend() {
        let api = ControlAPI(
            store: DeliveryStore(), registry: DeviceRegistry(),
            feedback: FixedFeedback(entries: [
                FeedbackEntry(token: "aa", timestamp: 1_735_787_045, environment: "sandbox")
            ]),
            status: { StoreFixtures.status() })
        let response = get(api)
        XCTAssertEqual(response.status, 200)
        let object = StoreFixtures.object(response.body)
        XCTAssertEqual(object["count"] as? Int, 1)
        let first = (object["feedback"] as? [[String: Any]])?.first
        XCTAssertEqual(first?["token"] as? String, "aa")
        XCTAssertEqual(first?["timestamp"] as? Int, 1_735_787_045)
        XCTAssertEqual(first?["environment"] as? String, "sandbox")
    }

    func testEmptyWithoutAFeedbackListenerAndNoQueryParameters() {
        let api = ControlAPI(store: DeliveryStore(), registry: DeviceRegistry(), status: { StoreFixtures.status() })
        XCTAssertEqual(StoreFixtures.object(get(api).body)["count"] as? Int, 0)
        XCTAssertEqual(get(api, "/v1/feedback?limit=1").status, 400)
    }
}
