import Recording
import XCTest

/// When a verification's count settles it (docs/testing.md): a table of count × matched × last look.
final class ExpectedCountTests: XCTestCase {
    func testVerdicts() {
        let rows: [(ExpectedCount, Int, Bool, Bool?)] = [
            (.atLeast(1), 0, false, nil), (.atLeast(1), 0, true, false), (.atLeast(1), 1, false, true),
            (.atLeast(2), 5, false, true),
            (.exactly(1), 0, false, nil), (.exactly(1), 1, false, true), (.exactly(1), 2, false, false),
            (.exactly(0), 0, false, true), (.exactly(2), 1, true, false),
            (.atMost(0), 0, false, nil), (.atMost(0), 0, true, true), (.atMost(0), 1, false, false),
            (.atMost(2), 2, true, true), (.atMost(2), 3, true, false),
        ]
        for (count, matched, final, expected) in rows {
            XCTAssertEqual(
                count.verdict(matched: matched, final: final), expected, "\(count) \(matched) final \(final)")
        }
    }

    func testFallingShort() {
        XCTAssertTrue(ExpectedCount.atLeast(3).fallsShort(matched: 1))
        XCTAssertFalse(ExpectedCount.atLeast(3).fallsShort(matched: 3))
        XCTAssertTrue(ExpectedCount.exactly(2).fallsShort(matched: 0))
        XCTAssertFalse(ExpectedCount.exactly(2).fallsShort(matched: 3))
        XCTAssertFalse(ExpectedCount.atMost(0).fallsShort(matched: 0))
    }

    func testDescriptions() {
        XCTAssertEqual(ExpectedCount.exactly(2).description, "exactly 2")
        XCTAssertEqual(ExpectedCount.atLeast(1).description, "at least 1")
        XCTAssertEqual(ExpectedCount.atMost(0).description, "never")
        XCTAssertEqual(ExpectedCount.atMost(3).description, "at most 3")
        XCTAssertEqual(ExpectedCount.atLeast(1).noun, "push")
        XCTAssertEqual(ExpectedCount.exactly(2).noun, "pushes")
        XCTAssertEqual(ExpectedCount.atMost(0).pushes, "no push", "never: \"expected no push matching ...\"")
        XCTAssertEqual(ExpectedCount.atMost(1).pushes, "at most 1 push")
        XCTAssertEqual(ExpectedCount.exactly(2).pushes, "exactly 2 pushes")
    }
}
