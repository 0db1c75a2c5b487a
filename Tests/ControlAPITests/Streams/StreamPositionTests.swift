import XCTest

@testable import ControlAPI

/// Where a live stream starts and how it reports records lost before it sent them.
final class StreamPositionTests: XCTestCase {
    func testStartPosition() throws {
        XCTAssertEqual(try StreamPosition(after: nil, lastEventID: nil), StreamPosition(scanned: 0, reportsGap: false))
        XCTAssertEqual(try StreamPosition(after: 4, lastEventID: nil), StreamPosition(scanned: 4, reportsGap: true))
        // Last-Event-ID (an SSE reconnect) wins over the URL's after.
        XCTAssertEqual(try StreamPosition(after: 4, lastEventID: " 9 "), StreamPosition(scanned: 9, reportsGap: true))
        XCTAssertEqual(try StreamPosition(after: 4, lastEventID: ""), StreamPosition(scanned: 4, reportsGap: true))
        XCTAssertThrowsError(try StreamPosition(after: nil, lastEventID: "x"))
        XCTAssertThrowsError(try StreamPosition(after: nil, lastEventID: "-1"))
    }

    func testGapOnlyForRecordsNotYetSent() {
        var position = StreamPosition(scanned: 2, reportsGap: true)
        XCTAssertNil(position.takeGap(firstSeq: 3, lastSeq: 10))  // nothing lost
        XCTAssertEqual(position.scanned, 2)
        XCTAssertEqual(position.takeGap(firstSeq: 6, lastSeq: 10), 3...5)
        XCTAssertEqual(position.scanned, 5)
        XCTAssertNil(position.takeGap(firstSeq: 6, lastSeq: 10))  // reported once
        // Cleared: nothing stored, lastSeq 12 → 6...12 lost.
        XCTAssertEqual(position.takeGap(firstSeq: 13, lastSeq: 12), 6...12)
        XCTAssertEqual(position.scanned, 12)
        XCTAssertNil(position.takeGap(firstSeq: 13, lastSeq: 12))
        // Past the end (after beyond lastSeq): nothing lost, the position stays.
        var ahead = StreamPosition(scanned: 50, reportsGap: true)
        XCTAssertNil(ahead.takeGap(firstSeq: 11, lastSeq: 20))
        XCTAssertEqual(ahead.scanned, 50)
        // The largest seq a client may name: no overflow (it stopped the server), nothing lost.
        var last = StreamPosition(scanned: .max, reportsGap: true)
        XCTAssertNil(last.takeGap(firstSeq: 1, lastSeq: 0))
        XCTAssertNil(last.takeGap(firstSeq: 3, lastSeq: 9))
        XCTAssertEqual(last.scanned, .max)
    }

    func testAStreamWithoutPositionSkipsOldEvictionsSilentlyOnlyAtItsStart() {
        var position = StreamPosition(scanned: 0, reportsGap: false)
        XCTAssertNil(position.takeGap(firstSeq: 100, lastSeq: 150))
        XCTAssertEqual(position.scanned, 99)
        XCTAssertTrue(position.reportsGap)
        position.advance(to: 150)
        XCTAssertEqual(position.takeGap(firstSeq: 200, lastSeq: 250), 151...199)
        position.advance(to: 10)
        XCTAssertEqual(position.scanned, 199)  // never back
    }
}
