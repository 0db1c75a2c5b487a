import APNsCore
import XCTest

@testable import TestFixtures

/// Body rules: emptiness, size in bytes, JSON object (docs/apns-behaviour.md §1.1, §9).
final class PayloadRuleTests: XCTestCase {
    typealias F = ValidationFixture

    /// `{"aps":{"alert":"ééé…"}}` padded to exactly `size` bytes with two-byte characters (plus
    /// one ASCII `x` when the parity needs it).
    static func alertBody(bytes size: Int) -> String {
        let frame = #"{"aps":{"alert":""}}"#.utf8.count
        let room = size - frame
        let text = String(repeating: "é", count: room / 2) + (room % 2 == 1 ? "x" : "")
        let body = #"{"aps":{"alert":"\#(text)"}}"#
        precondition(body.utf8.count == size)
        return body
    }

    func testSizeTable() {
        let voip = ["apns-push-type": "voip", "apns-topic": "com.example.app.voip"]
        let body4096 = Self.alertBody(bytes: 4096)
        XCTAssertLessThan(body4096.count, 4096, "the limit is in bytes, not characters")
        check([
            ValidationRow("alert 4096 bytes of multi-byte UTF-8", F.request(body: body4096), nil),
            ValidationRow("alert 4097 bytes", F.request(body: Self.alertBody(bytes: 4097)), .payloadTooLarge),
            ValidationRow("voip 5120 bytes", F.request(replacing: voip, body: Self.alertBody(bytes: 5120)), nil),
            ValidationRow(
                "voip 5121 bytes", F.request(replacing: voip, body: Self.alertBody(bytes: 5121)), .payloadTooLarge),
            ValidationRow(
                "voip size for an alert push", F.request(body: Self.alertBody(bytes: 5120)), .payloadTooLarge),
            ValidationRow(
                "no push type: 4096 limit", F.request(removing: ["apns-push-type"], body: Self.alertBody(bytes: 4097)),
                .payloadTooLarge),
            ValidationRow(
                "5000 bytes of garbage: size before parse",
                F.request(bytes: [UInt8](repeating: UInt8(ascii: "x"), count: 5000)), .payloadTooLarge),
        ])
        XCTAssertEqual(Reason.payloadTooLarge.status, 413)
    }

    func testBodyShapeTable() {
        let rows = [
            ValidationRow("empty body", F.request(body: ""), .payloadEmpty),
            ValidationRow("invalid JSON", F.request(body: #"{"aps":"#), .payloadEmpty),
            ValidationRow("trailing garbage", F.request(body: #"{"aps":{}}x"#), .payloadEmpty),
            ValidationRow("JSON array", F.request(body: #"[{"aps":{}}]"#), .payloadEmpty),
            ValidationRow("JSON string", F.request(body: #""hello""#), .payloadEmpty),
            ValidationRow("plain text", F.request(body: "hello"), .payloadEmpty),
            ValidationRow("empty object (Wallet)", F.request(body: "{}"), nil),
            ValidationRow(
                "MDM payload without aps",
                F.request(
                    replacing: ["apns-push-type": "mdm", "apns-topic": "com.apple.mgmt.External.5a1f3c2e"],
                    body: #"{"mdm":"3C5E4C6F-2B1A-4D8E-9A6B-5C4D3E2F1A0B"}"#), nil),
            ValidationRow(
                "invalid JSON, configured reason", F.request(body: "nope"), .badMessageID,
                options: ValidationOptions(invalidPayloadReason: .badMessageID)),
            ValidationRow(
                "empty body ignores the configured reason", F.request(body: ""), .payloadEmpty,
                options: ValidationOptions(invalidPayloadReason: .badMessageID)),
        ]
        let verdicts = check(rows)
        XCTAssertNil(verdicts[0].payloadError, "an empty body is not a parse error")
        XCTAssertEqual(verdicts[1].payloadError?.isEmpty, false, "the parser's message is recorded")
        XCTAssertNotNil(verdicts[2].payloadError)
        XCTAssertEqual(verdicts[3].payloadError, "payload is not a JSON object")
        XCTAssertNotNil(verdicts[4].payloadError)
        XCTAssertNil(verdicts[6].payloadError)
        XCTAssertEqual(verdicts[7].lints, [], "MDM push: no lints")
        XCTAssertNotNil(verdicts[8].payloadError)
    }

    func testPushTypeInference() {
        let noType: Set<String> = ["apns-push-type"]
        let background = F.validate(F.request(removing: noType, body: #"{"aps":{"content-available":1}}"#))
        XCTAssertEqual(background.pushType, .background)
        XCTAssertNil(background.pushTypeSent)
        let alert = F.validate(F.request(removing: noType))
        XCTAssertEqual(alert.pushType, .alert)
        let mixed = F.validate(F.request(removing: noType, body: #"{"aps":{"content-available":1,"badge":1}}"#))
        XCTAssertEqual(mixed.pushType, .alert, "content-available with other keys is not background")
        let zero = F.validate(F.request(removing: noType, body: #"{"aps":{"content-available":0}}"#))
        XCTAssertEqual(zero.pushType, .alert)
        let sent = F.validate(F.request(body: #"{"aps":{"content-available":1}}"#))
        XCTAssertEqual(sent.pushType, .alert, "a sent type is never overridden")
        XCTAssertNil(background.reason)
    }
}
