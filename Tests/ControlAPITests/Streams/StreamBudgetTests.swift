import XCTest

@testable import ControlAPI

/// The write, wait and cutoff decisions of a live stream.
final class StreamBudgetTests: XCTestCase {
    func testWritesUnderTheBoundWaitsAtItAndCutsOffWhenItStaysThere() {
        let budget = StreamBudget(maxUnsentBytes: 100, stallSeconds: 2)
        XCTAssertEqual(budget.decide(unsentBytes: 0, fullSince: nil, now: 10), .write)
        XCTAssertEqual(budget.decide(unsentBytes: 99, fullSince: 1, now: 10), .write)
        XCTAssertEqual(budget.decide(unsentBytes: 100, fullSince: nil, now: 10), .wait)
        XCTAssertEqual(budget.decide(unsentBytes: 500, fullSince: 9, now: 10), .wait)
        XCTAssertEqual(budget.decide(unsentBytes: 100, fullSince: 8, now: 10), .cutOff)
        XCTAssertEqual(StreamBudget().maxUnsentBytes, 4 << 20)
        XCTAssertEqual(StreamBudget().stallSeconds, 2)
        XCTAssertEqual(
            StreamBudget(maxUnsentBytes: 0, stallSeconds: -1), StreamBudget(maxUnsentBytes: 1, stallSeconds: 0))
        XCTAssertEqual(StreamBudget.defaultMaxStreams, 64)
    }
}
