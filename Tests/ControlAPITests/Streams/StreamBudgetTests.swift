import XCTest

@testable import ControlAPI

/// The cutoff decision of a live stream.
final class StreamBudgetTests: XCTestCase {
    func testCutOffOnlyPastTheBound() {
        let budget = StreamBudget(maxUnsentBytes: 100)
        XCTAssertEqual(budget.decide(unsentBytes: 0), .write)
        XCTAssertEqual(budget.decide(unsentBytes: 100), .write)
        XCTAssertEqual(budget.decide(unsentBytes: 101), .cutOff)
        XCTAssertEqual(StreamBudget().maxUnsentBytes, 4 << 20)
        XCTAssertEqual(StreamBudget(maxUnsentBytes: 0).maxUnsentBytes, 1)
        XCTAssertEqual(StreamBudget.defaultMaxStreams, 64)
    }
}
