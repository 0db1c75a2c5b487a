import XCTest

@testable import ControlAPI

/// The SSE and NDJSON framing of a live stream's messages (README "Live stream").
final class StreamFramesTests: XCTestCase {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    func testRecordFraming() {
        let json = Array(#"{"seq":7}"#.utf8)
        XCTAssertEqual(
            text(StreamFrames.record(.sse, event: "delivery", seq: 7, json: json)),
            "event: delivery\nid: 7\ndata: {\"seq\":7}\n\n")
        XCTAssertEqual(text(StreamFrames.record(.ndjson, event: "delivery", seq: 7, json: json)), "{\"seq\":7}\n")
    }

    func testStreamMessages() {
        XCTAssertEqual(text(StreamFrames.heartbeat(.sse, lastSeq: 3)), ": heartbeat\n\n")
        XCTAssertEqual(text(StreamFrames.heartbeat(.ndjson, lastSeq: 3)), "{\"heartbeat\":true,\"lastSeq\":3}\n")
        XCTAssertEqual(
            text(StreamFrames.gap(.sse, 3...5)),
            "event: gap\nid: 5\ndata: {\"gap\":true,\"from\":3,\"to\":5,\"reason\":\"evicted or cleared before it was sent\"}\n\n"
        )
        XCTAssertEqual(
            text(StreamFrames.gap(.ndjson, 3...5)),
            "{\"gap\":true,\"from\":3,\"to\":5,\"reason\":\"evicted or cleared before it was sent\"}\n")
        XCTAssertEqual(
            text(StreamFrames.cutoff(.sse, lastSeq: 9)),
            "event: cutoff\ndata: {\"cutoff\":true,\"lastSeq\":9,\"reason\":\"slow consumer\"}\n\n")
        XCTAssertEqual(
            text(StreamFrames.cutoff(.ndjson, lastSeq: 9)),
            "{\"cutoff\":true,\"lastSeq\":9,\"reason\":\"slow consumer\"}\n")
        XCTAssertEqual(
            text(StreamFrames.end(.ndjson, lastSeq: 9)), "{\"end\":true,\"lastSeq\":9,\"reason\":\"server stopping\"}\n"
        )
        XCTAssertEqual(
            text(StreamFrames.end(.sse, lastSeq: 9)),
            "event: end\ndata: {\"end\":true,\"lastSeq\":9,\"reason\":\"server stopping\"}\n\n")
    }

    func testFormatChoice() throws {
        XCTAssertEqual(try StreamFormat.requested(format: nil, accept: nil), .sse)
        XCTAssertEqual(try StreamFormat.requested(format: nil, accept: "text/event-stream"), .sse)
        XCTAssertEqual(try StreamFormat.requested(format: nil, accept: "Application/X-NDJSON"), .ndjson)
        XCTAssertEqual(try StreamFormat.requested(format: "sse", accept: "application/x-ndjson"), .sse)
        XCTAssertEqual(try StreamFormat.requested(format: "ndjson", accept: nil), .ndjson)
        XCTAssertThrowsError(try StreamFormat.requested(format: "xml", accept: nil))
        XCTAssertEqual(StreamFormat.sse.contentType, "text/event-stream")
        XCTAssertEqual(StreamFormat.ndjson.contentType, "application/x-ndjson")
    }
}
