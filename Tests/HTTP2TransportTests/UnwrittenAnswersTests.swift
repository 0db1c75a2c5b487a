import XCTest

@testable import HTTP2Transport

final class UnwrittenAnswersTests: XCTestCase {
    /// An entry ends where the bytes appended after its HEADERS was serialized end; only those
    /// past what was written are lost, and an entry never appended is lost too (issue 13).
    func testOnlyHeadersPastTheWrittenBytesAreLost() {
        var answers = UnwrittenAnswers()
        XCTAssertTrue(answers.isEmpty)
        answers.serialized(tag: 1, streamID: 1)
        answers.appended(through: 100)
        answers.serialized(tag: 3, streamID: 3)
        answers.serialized(tag: 5, streamID: 5)
        answers.appended(through: 250)
        answers.serialized(tag: 7, streamID: 7)  // serialized, its bytes never appended
        XCTAssertEqual(answers.entries.map(\.end), [100, 250, 250, 0])
        XCTAssertEqual(answers.lost(writtenThrough: 100).map(\.tag), [3, 5, 7])
        XCTAssertTrue(answers.isEmpty, "lost(writtenThrough:) forgets every entry")
    }

    func testEverythingWrittenLosesNothing() {
        var answers = UnwrittenAnswers()
        answers.serialized(tag: 1, streamID: 1)
        answers.appended(through: 40)
        XCTAssertEqual(answers.lost(writtenThrough: 40), [])
        answers.serialized(tag: 3, streamID: 3)
        answers.appended(through: 80)
        answers.allWritten()
        XCTAssertTrue(answers.isEmpty)
        answers.serialized(tag: 9, streamID: 9)
        answers.appended(through: 120)
        XCTAssertEqual(answers.entries, [UnwrittenAnswers.Entry(tag: 9, streamID: 9, end: 120)])
        XCTAssertEqual(answers.lost(writtenThrough: 0).map(\.streamID), [9])
    }
}
