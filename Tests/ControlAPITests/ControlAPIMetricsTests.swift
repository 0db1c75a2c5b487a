import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import Faults
@testable import JSONSupport
@testable import Recording
@testable import TestFixtures

/// `GET /metrics`: the counts `/v1/stats` reports, by series, in either format.
final class ControlAPIMetricsTests: XCTestCase {
    private typealias F = StoreFixtures

    private func get(_ api: ControlAPI, accept: String? = nil) -> ControlResponse {
        guard
            case .response(let response) = api.handle(
                ControlRequest(method: "GET", path: "/metrics", headers: accept.map { [("accept", $0)] } ?? []))
        else {
            XCTFail("GET /metrics waits")
            return ControlResponse(status: 0, body: [])
        }
        return response
    }

    /// The sample lines, without comments.
    private func samples(_ response: ControlResponse) -> [String] {
        String(decoding: response.body, as: UTF8.self).split(separator: "\n").map(String.init).filter {
            !$0.hasPrefix("#")
        }
    }

    func testCountersAreTheStoresAndTheEventStoresAndTheRules() throws {
        let store = DeliveryStore(capacity: 2)
        let events = ConnectionEventStore()
        let faults = FaultEngine()
        let latency = AnswerLatencyHistogram()
        let api = ControlAPI(
            store: store, registry: DeviceRegistry(), events: events, faults: faults, answerLatency: latency,
            status: { F.status() })
        store.append(F.record())
        store.append(F.record(status: 410, reason: .unregistered, environment: .production))
        store.append(F.record())
        latency.observe(nanoseconds: 30_000)
        _ = try faults.add(
            FaultRule(id: "f1", action: .respond(FaultResponse(status: 503, reason: .serviceUnavailable))))
        let response = get(api)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.contentType, "text/plain; version=0.0.4; charset=utf-8")
        let lines = samples(response)
        for expected in [
            #"mock_apns_pushes_total{listener="sandbox",environment="sandbox",status="200",reason="",push_type="alert",priority="10"} 2"#,
            #"mock_apns_pushes_total{listener="sandbox",environment="production",status="410",reason="Unregistered",push_type="alert",priority="10"} 1"#,
            "mock_apns_records_stored 2", "mock_apns_records_capacity 2", "mock_apns_records_evicted_total 1",
            "mock_apns_connections_open 2", #"mock_apns_faults_fired_total{rule="f1"} 0"#,
            "mock_apns_answer_latency_seconds_count 1", #"mock_apns_answer_latency_seconds_bucket{le="0.0001"} 1"#,
            #"mock_apns_info{version="0.1.0-test"} 1"#, "mock_apns_uptime_seconds 1.234",
        ] {
            XCTAssertTrue(lines.contains(expected), "missing \(expected) in \(lines)")
        }
        XCTAssertFalse(lines.contains { $0.contains("token") }, "never by device token")
        XCTAssertFalse(lines.contains { $0.hasPrefix("mock_apns_streams_open") }, "no directory, no streams")
    }

    func testOpenMetricsOnRequest() {
        let api = ControlAPI(store: DeliveryStore(), registry: DeviceRegistry(), status: { F.status() })
        let response = get(api, accept: "application/openmetrics-text; version=1.0.0")
        XCTAssertEqual(response.contentType, "application/openmetrics-text; version=1.0.0; charset=utf-8")
        let text = String(decoding: response.body, as: UTF8.self)
        XCTAssertTrue(text.hasSuffix("# EOF\n"))
        XCTAssertTrue(text.contains("# TYPE mock_apns_pushes counter\n"))
        XCTAssertFalse(text.contains("mock_apns_answer_latency"), "no histogram given, none written")
    }

    func testRouteTakesNoQueryAndOnlyGet() {
        let api = ControlAPI(store: DeliveryStore(), registry: DeviceRegistry(), status: { F.status() })
        XCTAssertEqual(api.respond("GET", "/metrics?x=1").status, 400)
        XCTAssertEqual(api.respond("POST", "/metrics").status, 405)
        XCTAssertEqual(api.respond("GET", "/v1/stats").contentType, "application/json")
    }
}
