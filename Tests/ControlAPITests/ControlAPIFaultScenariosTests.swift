import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import Faults
@testable import Recording
@testable import TestFixtures

/// `GET /v1/fault-scenarios` (docs/console.md §6, the console's scenario picker): every preset
/// with its words and an example body that `POST /v1/faults` takes; a rule of id `scenarios`
/// keeps its own path.
final class ControlAPIFaultScenariosTests: XCTestCase {
    private func makeAPI() -> ControlAPI {
        ControlAPI(store: DeliveryStore(capacity: 10), registry: DeviceRegistry(), status: { StoreFixtures.status() })
    }

    func testEveryScenarioIsListedAndItsExampleIsAccepted() throws {
        let api = makeAPI()
        let (status, json) = api.call("GET", "/v1/fault-scenarios")
        XCTAssertEqual(status, 200)
        let scenarios = try XCTUnwrap(json["scenarios"] as? [[String: Any]])
        XCTAssertEqual(scenarios.compactMap { $0["name"] as? String }, FaultScenario.allCases.map(\.rawValue))
        for scenario in scenarios {
            let name = try XCTUnwrap(scenario["name"] as? String)
            XCTAssertFalse((scenario["summary"] as? String ?? "").isEmpty, name)
            let parameters = try XCTUnwrap(scenario["parameters"] as? [[String: String]], name)
            XCTAssertEqual(parameters.compactMap { $0["name"] }, FaultScenario(rawValue: name)?.parameterNames)
            let example = try JSONSerialization.data(withJSONObject: try XCTUnwrap(scenario["example"]))
            let (added, answer) = api.call("POST", "/v1/faults", body: String(decoding: example, as: UTF8.self))
            XCTAssertEqual(added, 201, "\(name): \(answer)")
        }
        XCTAssertEqual(api.call("POST", "/v1/fault-scenarios").0, 405)
    }

    func testARuleOfIDScenariosKeepsItsPath() {
        let api = makeAPI()
        let rule = #"{"id": "scenarios", "action": {"type": "respond", "status": 503}}"#
        XCTAssertEqual(api.call("POST", "/v1/faults", body: rule).0, 201)
        XCTAssertEqual(api.call("GET", "/v1/faults/scenarios").1["id"] as? String, "scenarios")
        XCTAssertEqual(api.call("DELETE", "/v1/faults/scenarios").0, 200)
    }
}
