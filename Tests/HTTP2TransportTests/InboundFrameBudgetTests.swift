import XCTest

@testable import HTTP2Transport

final class InboundFrameBudgetTests: XCTestCase {
    func testTheBaseAllowanceThenRefusal() {
        var budget = InboundFrameBudget()
        for _ in 0..<InboundFrameBudget.base { XCTAssertTrue(budget.frameReceived()) }
        XCTAssertFalse(budget.frameReceived())
    }

    func testStreamsAndDataFramesSentGrowTheAllowance() {
        var budget = InboundFrameBudget()
        for _ in 0..<10 { budget.streamOpened() }
        for _ in 0..<5 { budget.dataFrameSent() }
        let allowed = InboundFrameBudget.base + 10 * InboundFrameBudget.perStream + 5 * InboundFrameBudget.perDataFrame
        for _ in 0..<allowed { XCTAssertTrue(budget.frameReceived()) }
        XCTAssertFalse(budget.frameReceived())
    }

    /// A client that acknowledges every error body (a WINDOW_UPDATE on the stream and one on the
    /// connection per DATA frame) never runs out, however long it runs.
    func testAWellBehavedClientNeverRunsOut() {
        var budget = InboundFrameBudget()
        for _ in 0..<100_000 {
            budget.streamOpened()
            budget.dataFrameSent()
            XCTAssertTrue(budget.frameReceived())
            XCTAssertTrue(budget.frameReceived())
        }
    }
}
