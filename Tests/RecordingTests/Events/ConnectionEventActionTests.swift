import XCTest

@testable import APNsCore
@testable import Recording
@testable import TestFixtures

/// A drain's event (kind `goaway`) and the `scenario` origin: what filters and descriptions see.
final class ConnectionEventActionTests: XCTestCase {
    private typealias E = EventFixtures

    func testDrainIsAGoawayWithItsCap() {
        let drain = ConnectionEventAction.drain(
            errorCode: 0, lastStreamID: 5, debugData: Array(#"{"reason":"Shutdown"}"#.utf8), maxMilliseconds: 3000)
        XCTAssertEqual(drain.kind, .goaway)
        XCTAssertEqual(drain.goawayReason, "Shutdown")
        XCTAssertEqual(
            drain.description,
            #"GOAWAY NO_ERROR (0) last-stream-id 5, debug data {"reason":"Shutdown"}, "#
                + "drained: closed once the streams in flight are answered, within 3000 ms")
    }

    func testScenarioOriginNamesTheScenario() {
        let origin = ConnectionEventOrigin.scenario("rolling-restart")
        XCTAssertEqual(origin.name, "scenario")
        XCTAssertTrue(ConnectionEventOrigin.names.contains("scenario"))
        XCTAssertNil(origin.ruleID)
        XCTAssertEqual(origin.ruleAction, "rolling-restart")
        let event = E.event(
            .drain(errorCode: 0, lastStreamID: 0, debugData: [], maxMilliseconds: 1), origin: origin)
        XCTAssertTrue(event.description.hasPrefix("scenario rolling-restart: GOAWAY NO_ERROR"), event.description)
        XCTAssertTrue(ConnectionEventFilter(origin: "scenario").matches(event))
        XCTAssertTrue(ConnectionEventFilter(kinds: [.goaway]).matches(event))
    }
}
