import JSONInput
import XCTest

@testable import APNsCore
@testable import JSONSupport
@testable import TestFixtures

final class DeliveryRecordJSONTests: XCTestCase {
    private typealias F = StoreFixtures

    private func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    func testFieldsAndTimeWithMilliseconds() {
        var record = F.record(
            status: 410, reason: .unregistered, collapseID: "c", timestamp: 1_700_000_000_000,
            lints: ["aps missing"])
        record.seq = 42
        record.uniqueID = "u-1"
        let json = F.object(encoding: record)
        XCTAssertEqual(json["seq"] as? UInt64, 42)
        XCTAssertEqual(json["receivedAt"] as? String, "2026-11-30T08:49:03.123Z")
        XCTAssertEqual(json["environment"] as? String, "sandbox")
        XCTAssertEqual(json["connectionId"] as? UInt64, 3)
        XCTAssertEqual(json["streamId"] as? Int, 7)
        XCTAssertEqual(json["deviceToken"] as? String, F.token)
        XCTAssertEqual(json["pushType"] as? String, "alert")
        XCTAssertEqual(json["inferredPushType"] as? String, "alert")
        XCTAssertEqual(json["priority"] as? Int, 10)
        XCTAssertTrue(json["expiration"] is NSNull)
        XCTAssertTrue(json["fanOut"] is NSNull, "a device push has no fan-out")
        XCTAssertEqual(json["protocol"] as? String, "http2")
        XCTAssertEqual(json["collapseId"] as? String, "c")
        XCTAssertEqual(json["uniqueId"] as? String, "u-1")
        XCTAssertEqual(json["status"] as? Int, 410)
        XCTAssertEqual(json["reason"] as? String, "Unregistered")
        XCTAssertEqual(json["timestamp"] as? Int64, 1_700_000_000_000)
        XCTAssertEqual(json["lints"] as? [String], ["aps missing"])
        XCTAssertTrue(json["providerToken"] is NSNull)
    }

    func testUnansweredIsNullWhenAnsweredAndTheCauseWithNullStatusWhenNot() {
        XCTAssertTrue(F.object(encoding: F.record())["unanswered"] is NSNull)
        var record = F.record()
        record.status = 0
        record.unanswered = .aboveLastStreamID
        let json = F.object(encoding: record)
        XCTAssertEqual(json["unanswered"] as? String, "above-last-stream-id")
        XCTAssertTrue(json["status"] is NSNull)
    }

    func testJSONPayloadIsParsedAndTextIsNull() {
        let json = F.object(encoding: F.record(payload: Array(#"{"aps":{"badge":3}}"#.utf8)))
        let aps = (json["payload"] as? [String: Any])?["aps"] as? [String: Any]
        XCTAssertEqual(aps?["badge"] as? Int, 3)
        XCTAssertTrue(json["payloadText"] is NSNull)
        XCTAssertEqual(json["payloadBytes"] as? Int, 19)
    }

    func testNonJSONPayloadGivesPayloadText() {
        let json = F.object(encoding: F.record(payload: Array("not json {".utf8), payloadError: "bad"))
        XCTAssertTrue(json["payload"] is NSNull)
        XCTAssertEqual(json["payloadText"] as? String, "not json {")
        XCTAssertEqual(json["payloadError"] as? String, "bad")
        let empty = F.object(encoding: F.record(payload: []))
        XCTAssertTrue(empty["payload"] is NSNull)
        XCTAssertTrue(empty["payloadText"] is NSNull)
        XCTAssertEqual(empty["payloadBytes"] as? Int, 0)
    }

    func testProviderTokenIsDecoded() {
        let header = base64URL(#"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        let claims = base64URL(#"{"iss":"DEF123GHIJ","iat":1700000000}"#)
        let record = F.record(headers: [
            HeaderField(name: "authorization", value: "bearer \(header).\(claims)"),
            HeaderField(name: "apns-topic", value: "com.example.app"),
        ])
        let json = F.object(encoding: record)
        let token = json["providerToken"] as? [String: Any]
        XCTAssertEqual((token?["header"] as? [String: Any])?["kid"] as? String, "ABC123DEFG")
        XCTAssertEqual((token?["claims"] as? [String: Any])?["iat"] as? Int, 1_700_000_000)
        let headers = json["headers"] as? [[String: String]]
        XCTAssertEqual(headers?.map { $0["name"] ?? "" }, ["authorization", "apns-topic"])
        XCTAssertEqual(headers?.last?["value"], "com.example.app")
    }

    func testUndecodableProviderTokenPartsStayRaw() {
        let claims = base64URL(#"{"iss":"T"}"#)
        let json = F.object(
            encoding: F.record(headers: [HeaderField(name: "authorization", value: "Bearer n0t*b64.\(claims)")]))
        let token = json["providerToken"] as? [String: Any]
        XCTAssertEqual(token?["header"] as? String, "n0t*b64")
        XCTAssertEqual((token?["claims"] as? [String: Any])?["iss"] as? String, "T")
        let basic = F.object(encoding: F.record(headers: [HeaderField(name: "authorization", value: "basic abc")]))
        XCTAssertTrue(basic["providerToken"] is NSNull)
    }

    func testProviderTokenIsBase64URLNotBase64() {
        // {"k":"~~~"}: base64url "eyJrIjoifn5-In0" (padding optional); base64 "eyJrIjoifn5+In0=".
        for part in ["eyJrIjoifn5-In0", "eyJrIjoifn5-In0="] {
            let json = F.object(
                encoding: F.record(headers: [HeaderField(name: "authorization", value: "bearer \(part).x")]))
            XCTAssertEqual(
                ((json["providerToken"] as? [String: Any])?["header"] as? [String: Any])?["k"] as? String, "~~~", part)
        }
        let json = F.object(
            encoding: F.record(headers: [HeaderField(name: "authorization", value: "bearer eyJrIjoifn5+In0=.x")]))
        XCTAssertEqual((json["providerToken"] as? [String: Any])?["header"] as? String, "eyJrIjoifn5+In0=")
    }

    func testISO8601FormatAndParse() {
        XCTAssertEqual(ISO8601Timestamp.format(epochSeconds: 0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(ISO8601Timestamp.format(epochSeconds: 951_782_400.5), "2000-02-29T00:00:00.500Z")
        // One range rule (ISO8601Timestamp.range): before the epoch clamps to it.
        XCTAssertEqual(ISO8601Timestamp.format(epochSeconds: -0.001), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(ISO8601Timestamp.format(epochSeconds: .nan), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(ISO8601Timestamp.parse("2026-11-30T08:49:03.123Z"), 1_796_028_543_123)
        XCTAssertEqual(ISO8601Timestamp.parse("2026-11-30T08:49:03Z"), 1_796_028_543_000)
        XCTAssertEqual(ISO8601Timestamp.parse("2026-11-30T09:49:03.1+01:00"), 1_796_028_543_100)
        XCTAssertEqual(ISO8601Timestamp.parse("2026-11-30T08:49:03.123456z"), 1_796_028_543_123)
        XCTAssertNil(ISO8601Timestamp.parse("2026-02-30T00:00:00Z"))
        XCTAssertNil(ISO8601Timestamp.parse("2026-11-30T08:49:03"))
        XCTAssertNil(ISO8601Timestamp.parse("2026-11-30T08:49:03.Z"))
        XCTAssertNil(ISO8601Timestamp.parse(""))
        // Formatting clamps into the one range: year 0 writes the epoch, year 10000 the last millisecond of 9999.
        XCTAssertEqual(ISO8601Timestamp.format(epochMilliseconds: -62_167_219_200_000), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(ISO8601Timestamp.format(epochMilliseconds: 253_402_300_799_999), "9999-12-31T23:59:59.999Z")
        XCTAssertEqual(ISO8601Timestamp.format(epochMilliseconds: 253_402_300_800_000), "9999-12-31T23:59:59.999Z")
        for ms: Int64 in [0, 1, 951_782_400_500, 4_102_444_799_999, 1_796_028_543_123] {
            XCTAssertEqual(ISO8601Timestamp.parse(ISO8601Timestamp.format(epochMilliseconds: ms)), ms)
        }
    }
}
