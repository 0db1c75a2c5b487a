import APNsCore
import XCTest

@testable import TestFixtures

/// `apns-topic` and the push-type/topic-suffix rules (docs/apns-behaviour.md §1.2, §1.3, §9; docs/field-cases.md C11).
final class TopicRuleTests: XCTestCase {
    typealias F = ValidationFixture

    func testTopicTable() {
        let longValid = "com." + String(repeating: "a", count: 251)  // 255 bytes
        let rows = [
            ValidationRow("bundle ID", F.request(), nil),
            ValidationRow("missing, no default", F.request(removing: ["apns-topic"]), .missingTopic),
            ValidationRow(
                "missing, certificate default", F.request(removing: ["apns-topic"]), nil,
                defaultTopic: "com.example.cert"),
            ValidationRow("empty", F.request(replacing: ["apns-topic": ""]), .badTopic),
            ValidationRow("space", F.request(replacing: ["apns-topic": "com.example app"]), .badTopic),
            ValidationRow("control character", F.request(replacing: ["apns-topic": "com.example\u{1}app"]), .badTopic),
            ValidationRow("tab", F.request(replacing: ["apns-topic": "com.example\tapp"]), .badTopic),
            ValidationRow("leading dot", F.request(replacing: ["apns-topic": ".com.example"]), .badTopic),
            ValidationRow("trailing dot", F.request(replacing: ["apns-topic": "com.example."]), .badTopic),
            ValidationRow("empty segment", F.request(replacing: ["apns-topic": "com..example"]), .badTopic),
            ValidationRow("slash", F.request(replacing: ["apns-topic": "com.example/app"]), .badTopic),
            ValidationRow("non-ASCII", F.request(replacing: ["apns-topic": "com.exämple.app"]), .badTopic),
            ValidationRow("256 bytes", F.request(replacing: ["apns-topic": longValid + "a"]), .badTopic),
            ValidationRow("255 bytes", F.request(replacing: ["apns-topic": longValid]), nil),
            ValidationRow("pass type ID", F.request(replacing: ["apns-topic": "pass.com.example.card"]), nil),
            ValidationRow("underscore and digits", F.request(replacing: ["apns-topic": "com.example_2.App-1"]), nil),
            ValidationRow("single label", F.request(replacing: ["apns-topic": "example"]), nil),
            ValidationRow(
                "sent empty topic beats the default", F.request(replacing: ["apns-topic": ""]), .badTopic,
                defaultTopic: "com.example.cert"),
        ]
        let verdicts = check(rows)
        XCTAssertEqual(verdicts[2].topic, "com.example.cert", "default topic applied")
        XCTAssertEqual(verdicts[4].topic, "com.example app", "recorded as sent")
        XCTAssertNil(verdicts[1].topic)
    }

    func testPushTypeAgainstTopicSuffixTable() {
        func push(_ type: String?, _ topic: String) -> HTTP2Request {
            type.map { F.request(replacing: ["apns-push-type": $0, "apns-topic": topic]) }
                ?? F.request(replacing: ["apns-topic": topic], removing: ["apns-push-type"])
        }
        check([
            ValidationRow("alert to .voip", push("alert", "com.example.app.voip"), .invalidPushType),
            ValidationRow("background to .voip", push("background", "com.example.app.voip"), .invalidPushType),
            ValidationRow("complication to .voip", push("complication", "com.example.app.voip"), .invalidPushType),
            ValidationRow("pushtotalk to .voip", push("pushtotalk", "com.example.app.voip"), .invalidPushType),
            ValidationRow("voip to bundle ID", push("voip", "com.example.app"), .deviceTokenNotForTopic),
            ValidationRow("voip to .voip", push("voip", "com.example.app.voip"), nil),
            ValidationRow("voip to .voip-ptt", push("voip", "com.example.app.voip-ptt"), .deviceTokenNotForTopic),
            ValidationRow("pushtotalk to .voip-ptt", push("pushtotalk", "com.example.app.voip-ptt"), nil),
            ValidationRow(
                "complication to bundle ID", push("complication", "com.example.app"), .deviceTokenNotForTopic),
            ValidationRow("complication to .complication", push("complication", "com.example.app.complication"), nil),
            ValidationRow(
                "liveactivity to bundle ID", push("liveactivity", "com.example.app"), .deviceTokenNotForTopic),
            ValidationRow(
                "liveactivity to widgets topic", push("liveactivity", "com.example.app.push-type.widgets"),
                .deviceTokenNotForTopic),
            ValidationRow("widgets to bundle ID", push("widgets", "com.example.app"), .deviceTokenNotForTopic),
            ValidationRow("controls to bundle ID", push("controls", "com.example.app"), .deviceTokenNotForTopic),
            ValidationRow(
                "fileprovider to bundle ID", push("fileprovider", "com.example.app"), .deviceTokenNotForTopic),
            ValidationRow("location to bundle ID", push("location", "com.example.app"), .deviceTokenNotForTopic),
            ValidationRow(
                "alert to .complication", push("alert", "com.example.app.complication"), .deviceTokenNotForTopic),
            ValidationRow(
                "background to .push-type.liveactivity",
                push("background", "com.example.app.push-type.liveactivity"), .deviceTokenNotForTopic),
            ValidationRow("alert to bundle ID", push("alert", "com.example.app"), nil),
            ValidationRow("no push type to .voip is not checked", push(nil, "com.example.app.voip"), nil),
            ValidationRow("voip to a bare '.voip' topic", push("voip", "voip"), .deviceTokenNotForTopic),
        ])
    }

    func testTopicRuleDirectly() {
        XCTAssertEqual(TopicRule.suffixPushType(of: "com.x.voip"), .voip)
        XCTAssertEqual(TopicRule.suffixPushType(of: "com.x.voip-ptt"), .pushtotalk)
        XCTAssertEqual(TopicRule.suffixPushType(of: "com.x.push-type.controls"), .controls)
        XCTAssertNil(TopicRule.suffixPushType(of: "com.x"))
        XCTAssertNil(TopicRule.suffixPushType(of: "com.xvoip"))
        XCTAssertTrue(TopicRule.isValid("com.apple.mgmt.External.5a1f3c2e-8b4d-4e6f-9a0b-1c2d3e4f5a6b"))
        XCTAssertFalse(TopicRule.isValid("."))
        XCTAssertNil(TopicRule.pushTypeMismatch(.mdm, topic: "com.apple.mgmt.External.x"))
    }
}
