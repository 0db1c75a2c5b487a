import XCTest

@testable import LegacyBinary

final class FeedbackTupleTests: XCTestCase {
    func testTupleBytes() {
        let tuple = FeedbackTuple(timestamp: 0x6000_0001, token: [0xAA, 0xBB])
        XCTAssertEqual(tuple.bytes, [0x60, 0, 0, 1, 0, 2, 0xAA, 0xBB])
        XCTAssertEqual(FeedbackTuple(timestamp: 0, token: []).bytes, [0, 0, 0, 0, 0, 0])
    }

    func testDecodeAllReadsBackAndCountsLeftover() {
        let tuples = [FeedbackTuple(timestamp: 1, token: [UInt8](0..<32)), FeedbackTuple(timestamp: 2, token: [7])]
        let bytes = tuples.flatMap(\.bytes)
        XCTAssertEqual(FeedbackTuple.decodeAll(bytes).tuples, tuples)
        XCTAssertEqual(FeedbackTuple.decodeAll(bytes).leftover, 0)
        XCTAssertEqual(FeedbackTuple.decodeAll(bytes + [0, 0, 0]).leftover, 3)
    }
}
