import APNsCore
import Faults
import XCTest

final class ListenerConditionsTests: XCTestCase {
    func testAdmission() {
        let now: Int64 = 1_000_000
        let rows: [(ListenerConditions, ListenerConditions.Admission)] = [
            (ListenerConditions(), .proceed(delayMilliseconds: 0)),
            (ListenerConditions(handshakeDelayMs: 250), .proceed(delayMilliseconds: 250)),
            (ListenerConditions(silent: true), .silent),
            (ListenerConditions(handshakeDelayMs: 250, silent: true), .silent),
            // A refusal outranks silence and delay while it lasts, and ends at its instant.
            (ListenerConditions(handshakeDelayMs: 250, silent: true, refuseUntil: now + 1), .refuse),
            (ListenerConditions(silent: true, refuseUntil: now), .silent),
            (ListenerConditions(refuseUntil: now - 1), .proceed(delayMilliseconds: 0)),
        ]
        for (conditions, expected) in rows {
            XCTAssertEqual(conditions.admission(nowMilliseconds: now), expected, "\(conditions)")
        }
    }

    func testUpdateRangesAndApplication() {
        XCTAssertNil(ListenerConditionsUpdate(handshakeDelayMs: 600_000, refuseMs: 86_400_000).problem)
        XCTAssertEqual(
            ListenerConditionsUpdate(handshakeDelayMs: 600_001).problem,
            "handshakeDelayMs must be 0 to 600000, got 600001")
        XCTAssertEqual(ListenerConditionsUpdate(refuseMs: -1).problem, "refuseMs must be 0 to 86400000, got -1")

        let start = ListenerConditions(handshakeDelayMs: 10, silent: true, refuseUntil: 5)
        // Absent fields leave the conditions as they are.
        XCTAssertEqual(ListenerConditionsUpdate().applied(to: start, nowMilliseconds: 100), start)
        // A refusal counts from the update; 0 ends it, as 0 ends a delay.
        XCTAssertEqual(
            ListenerConditionsUpdate(handshakeDelayMs: 0, silent: false, refuseMs: 30).applied(
                to: start, nowMilliseconds: 100),
            ListenerConditions(handshakeDelayMs: 0, silent: false, refuseUntil: 130))
        XCTAssertNil(ListenerConditionsUpdate(refuseMs: 0).applied(to: start, nowMilliseconds: 100).refuseUntil)
    }

    func testBoardKnowsOnlyItsListeners() {
        let board = ListenerConditionsInForce(listeners: [("default", .sandbox), ("production", .production)])
        XCTAssertEqual(board.conditions(of: "default"), ListenerConditions())
        XCTAssertNil(board.conditions(of: "nope"))
        XCTAssertTrue(board.set(ListenerConditions(silent: true), for: "production"))
        XCTAssertEqual(board.conditions(of: "production"), ListenerConditions(silent: true))
        XCTAssertEqual(board.conditions(of: "default"), ListenerConditions())
        XCTAssertFalse(board.set(ListenerConditions(silent: true), for: "nope"))
        XCTAssertNil(board.conditions(of: "nope"))
        XCTAssertEqual(board.listeners.map(\.name), ["default", "production"])
    }
}
