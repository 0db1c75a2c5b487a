import APNsCore
import XCTest

/// A request's kind by its path (docs/broadcast.md §4), and a record's channel ID.
final class RequestKindTests: XCTestCase {
    func testKindsByPath() {
        let rows: [(String, RequestKind)] = [
            ("/3/device/aabb", .push), ("", .push), ("/", .push), ("/1", .push), ("/14/x", .push), ("1/apps", .push),
            ("/v1/channels", .push), ("/1/apps/com.x/channels", .channel), ("/1/", .channel),
            ("/4/broadcasts/apps/com.x", .broadcast), ("4/broadcasts/apps/com.x", .broadcast), ("/4/", .broadcast),
        ]
        for (path, kind) in rows {
            XCTAssertEqual(RequestKind(path: path), kind, path)
        }
    }

    func record(_ path: String, _ headers: [HeaderField] = []) -> DeliveryRecord {
        DeliveryRecord(
            receivedAt: 0, environment: .sandbox, listener: "l", connectionID: 1, streamID: 1, method: "GET",
            path: path, verdict: ValidationResult(), apnsID: "", uniqueID: nil, headers: headers, payload: [],
            status: 200, reason: nil)
    }

    func testChannelIDFromTheHeaderOrThePath() {
        let field = [HeaderField(name: "apns-channel-id", value: "AAAA")]
        XCTAssertEqual(record("/1/apps/com.x/channels", field).channelID, "AAAA")
        XCTAssertEqual(record("/4/broadcasts/apps/com.x", field).channelID, "AAAA")
        XCTAssertEqual(record("/1/apps/com.x/channels/ab%2Bc%2F%3D%3D").channelID, "ab+c/==")
        XCTAssertEqual(record("/1/apps/com.x/channels/AAAA").channelID, "AAAA")
        XCTAssertNil(record("/1/apps/com.x/channels").channelID)
        XCTAssertNil(record("/1/apps/com.x/all-channels").channelID)
        XCTAssertNil(record("/3/device/aabb", field).channelID)  // a device push has none
        XCTAssertEqual(record("/1/apps/com.x/channels/%zz").channelID, "%zz")  // malformed escape kept
        XCTAssertEqual(record("/1/apps/com.x/channels").kind, .channel)
    }
}
