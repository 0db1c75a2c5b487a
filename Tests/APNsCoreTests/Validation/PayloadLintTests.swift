import APNsCore
import XCTest

@testable import TestFixtures

/// Lints (docs/apns-behaviour.md §9 table) and `lintsAsErrors`.
final class PayloadLintTests: XCTestCase {
    typealias F = ValidationFixture

    struct LintRow {
        var name: String
        var request: HTTP2Request
        var lints: [PayloadLint]
        var line: UInt

        init(_ name: String, _ request: HTTP2Request, _ lints: [PayloadLint], line: UInt = #line) {
            self.name = name
            self.request = request
            self.lints = lints
            self.line = line
        }
    }

    static func push(_ type: String?, priority: String? = nil, topic: String = F.topic, _ body: String) -> HTTP2Request
    {
        var replacing = ["apns-topic": topic]
        if let type { replacing["apns-push-type"] = type }
        return F.request(
            replacing: replacing, removing: type == nil ? ["apns-push-type"] : [],
            extra: priority.map { [("apns-priority", $0)] } ?? [], body: body)
    }

    static let rows: [LintRow] = [
        LintRow("clean alert", push("alert", #"{"aps":{"alert":"hi","sound":"default","badge":3}}"#), []),
        LintRow("clean background at 5", push("background", priority: "5", #"{"aps":{"content-available":1}}"#), []),
        LintRow(
            "missing push type, alert", push(nil, #"{"aps":{"alert":"hi"}}"#), [.missingPushType(inferred: .alert)]),
        LintRow(
            "missing push type, background at 5", push(nil, priority: "5", #"{"aps":{"content-available":1}}"#),
            [.missingPushType(inferred: .background)]),
        LintRow(
            "missing push type, background at 10", push(nil, #"{"aps":{"content-available":1}}"#),
            [.missingPushType(inferred: .background), .backgroundAtPriority10]),
        LintRow("alert without aps", push("alert", "{}"), [.missingAps(.alert)]),
        LintRow(
            "background without aps", push("background", priority: "5", #"{"data":1}"#), [.missingAps(.background)]),
        LintRow("mdm without aps", push("mdm", topic: "com.apple.mgmt.External.x", #"{"mdm":"magic"}"#), []),
        LintRow("aps not a dictionary", push("alert", #"{"aps":"hi"}"#), [.apsNotDictionary]),
        LintRow("background at 10", push("background", #"{"aps":{"content-available":1}}"#), [.backgroundAtPriority10]),
        LintRow("background at 1", push("background", priority: "1", #"{"aps":{"content-available":1}}"#), []),
        LintRow(
            "alert at 10 without alert/sound/badge", push("alert", #"{"aps":{"content-available":1}}"#),
            [.alertWithoutContentAtPriority10]),
        LintRow(
            "alert at 5 without alert/sound/badge", push("alert", priority: "5", #"{"aps":{"thread-id":"t"}}"#), []),
        LintRow("alert at 10 with only a badge", push("alert", #"{"aps":{"badge":0}}"#), []),
        LintRow(
            "background with alert", push("background", priority: "5", #"{"aps":{"content-available":1,"alert":"x"}}"#),
            [.backgroundWithVisibleContent]),
        LintRow(
            "background with sound", push("background", priority: "5", #"{"aps":{"content-available":1,"sound":"a"}}"#),
            [.backgroundWithVisibleContent]),
        LintRow(
            "background without content-available", push("background", priority: "5", #"{"aps":{"thread-id":"t"}}"#),
            [.backgroundWithoutContentAvailable]),
        LintRow(
            "content-available 0", push("alert", #"{"aps":{"alert":"x","content-available":0}}"#),
            [.contentAvailableNotOne]),
        LintRow(
            "content-available true", push("alert", #"{"aps":{"alert":"x","content-available":true}}"#),
            [.contentAvailableNotOne]),
        LintRow(
            "content-available \"1\"", push("alert", #"{"aps":{"alert":"x","content-available":"1"}}"#),
            [.contentAvailableNotOne]),
        LintRow("content-available 1.0", push("alert", #"{"aps":{"alert":"x","content-available":1.0}}"#), []),
        LintRow("alert is a number", push("alert", #"{"aps":{"alert":5}}"#), [.alertWrongType]),
        LintRow("alert is an array", push("alert", #"{"aps":{"alert":["a"]}}"#), [.alertWrongType]),
        LintRow("alert is a dictionary", push("alert", #"{"aps":{"alert":{"title":"t","body":"b"}}}"#), []),
        LintRow("badge is a string", push("alert", #"{"aps":{"alert":"x","badge":"3"}}"#), [.badgeNotNumber]),
        LintRow("badge is a boolean", push("alert", #"{"aps":{"alert":"x","badge":true}}"#), [.badgeNotNumber]),
        LintRow("badge is null", push("alert", #"{"aps":{"alert":"x","badge":null}}"#), [.badgeNotNumber]),
        LintRow("sound is a number", push("alert", #"{"aps":{"alert":"x","sound":1}}"#), [.soundWrongType]),
        LintRow(
            "sound is a critical dictionary",
            push("alert", #"{"aps":{"alert":"x","sound":{"critical":1,"name":"a.caf","volume":0.5}}}"#), []),
        LintRow(
            "custom keys inside aps", push("alert", #"{"aps":{"alert":"x","foo":1,"bar":{}}}"#),
            [.customApsKeys(["bar", "foo"])]),
        LintRow("custom keys beside aps", push("alert", #"{"aps":{"alert":"x"},"foo":1,"bar":[1]}"#), []),
        LintRow(
            "every documented aps key",
            push(
                "liveactivity", topic: "com.example.app.push-type.liveactivity",
                """
                {"aps":{"alert":{"title":"t"},"badge":1,"sound":"s","thread-id":"t","category":"c",
                "target-content-id":"i","filter-criteria":"f","mutable-content":1,"interruption-level":"active",
                "relevance-score":0.5,"stale-date":1,"timestamp":1,"dismissal-date":1,"content-state":{},
                "event":"start","attributes-type":"A","attributes":{},"input-push-token":1,"input-push-channel":"c",
                "content-changed":true}}
                """), []),
        LintRow(
            "several at once, in order",
            push("background", #"{"aps":{"content-available":2,"alert":7,"badge":"1","sound":[],"zz":1}}"#),
            [
                .backgroundAtPriority10, .backgroundWithVisibleContent, .contentAvailableNotOne, .alertWrongType,
                .badgeNotNumber, .soundWrongType, .customApsKeys(["zz"]),
            ]),
    ]

    func testLintTable() {
        for row in Self.rows {
            let verdict = F.validate(row.request)
            XCTAssertNil(verdict.reason, "lints never reject by default: \(row.name)", line: row.line)
            XCTAssertEqual(verdict.lints, row.lints.map(\.message), row.name, line: row.line)
        }
    }

    func testMessagesNameTheAppleRule() {
        XCTAssertEqual(
            PayloadLint.backgroundAtPriority10.message,
            "background push at priority 10: Apple requires apns-priority 5 for background pushes "
                + "(Pushing background updates to your App)")
        let all: [PayloadLint] = [
            .missingPushType(inferred: .alert), .missingAps(.alert), .apsNotDictionary, .backgroundAtPriority10,
            .alertWithoutContentAtPriority10, .backgroundWithVisibleContent, .backgroundWithoutContentAvailable,
            .contentAvailableNotOne, .alertWrongType, .badgeNotNumber, .soundWrongType, .customApsKeys(["k"]),
        ]
        XCTAssertEqual(Set(all.map(\.message)).count, all.count, "messages are distinct")
        for lint in all {
            XCTAssertTrue(lint.message.contains("Apple"), lint.message)
            XCTAssertTrue(lint.message.hasSuffix(")"), "ends with the Apple document: \(lint.message)")
        }
        XCTAssertTrue(PayloadLint.customApsKeys(["a", "b"]).message.contains("(a, b)"))
        // The literal messages for alert/background and the interpolated one for other types agree.
        for type in [PushType.alert, .background] {
            XCTAssertEqual(
                PayloadLint.missingPushType(inferred: type).message,
                PayloadLint.missingPushType(inferred: .voip).message
                    .replacingOccurrences(of: "treated as voip", with: "treated as \(type.rawValue)"))
            XCTAssertEqual(
                PayloadLint.missingAps(type).message,
                PayloadLint.missingAps(.mdm).message
                    .replacingOccurrences(of: "mdm push", with: "\(type.rawValue) push"))
        }
        XCTAssertFalse(
            PayloadLint.backgroundAtPriority10.message.contains("\n"), "continuation lines join with no newline")
    }

    func testLintsAsErrorsTable() {
        let strict = ValidationOptions(lintsAsErrors: true)
        func row(
            _ name: String, _ request: HTTP2Request, _ reason: Reason?, options: ValidationOptions = strict,
            devices: [DeviceRegistration] = [], line: UInt = #line
        ) -> ValidationRow {
            ValidationRow(name, request, reason, options: options, devices: devices, line: line)
        }
        let verdicts = check([
            row("clean alert", Self.push("alert", #"{"aps":{"alert":"hi"}}"#), nil),
            row("missing push type", Self.push(nil, #"{"aps":{"alert":"hi"}}"#), .invalidPushType),
            row("alert without aps", Self.push("alert", "{}"), .invalidPushType),
            row("aps not a dictionary", Self.push("alert", #"{"aps":1}"#), .payloadEmpty),
            row("background at 10", Self.push("background", #"{"aps":{"content-available":1}}"#), .badPriority),
            row("alert at 10 without content", Self.push("alert", #"{"aps":{"content-available":1}}"#), .badPriority),
            row(
                "background with alert",
                Self.push("background", priority: "5", #"{"aps":{"content-available":1,"alert":"x"}}"#),
                .invalidPushType),
            row(
                "background without content-available",
                Self.push("background", priority: "5", #"{"aps":{"category":"c"}}"#), .invalidPushType),
            row(
                "content-available 0", Self.push("alert", #"{"aps":{"alert":"x","content-available":0}}"#),
                .payloadEmpty),
            row("alert a number", Self.push("alert", #"{"aps":{"alert":1}}"#), .payloadEmpty),
            row("badge a string", Self.push("alert", #"{"aps":{"alert":"x","badge":"1"}}"#), .payloadEmpty),
            row("sound a number", Self.push("alert", #"{"aps":{"alert":"x","sound":1}}"#), .payloadEmpty),
            row("custom aps key", Self.push("alert", #"{"aps":{"alert":"x","custom":1}}"#), .payloadEmpty),
            row(
                "custom aps key, configured payload reason", Self.push("alert", #"{"aps":{"alert":"x","custom":1}}"#),
                .badTopic,
                options: ValidationOptions(lintsAsErrors: true, invalidPayloadReason: .badTopic)),
            row("first lint decides", Self.push(nil, #"{"aps":{"content-available":1}}"#), .invalidPushType),
            row(
                "lints off: accepted", Self.push(nil, #"{"aps":{"content-available":1}}"#), nil,
                options: ValidationOptions()),
            row("after the token check", F.request(token: "xyz0", removing: ["apns-push-type"]), .badDeviceToken),
            row(
                "after the registry", Self.push(nil, #"{"aps":{"alert":"hi"}}"#), .unregistered,
                devices: [DeviceRegistration(token: F.token, environment: .sandbox, unregisteredAt: 5)]),
        ])
        XCTAssertEqual(
            verdicts[1].lints, [PayloadLint.missingPushType(inferred: .alert).message],
            "lints stay recorded when they reject")
        XCTAssertEqual(
            verdicts[16].lints, [PayloadLint.missingPushType(inferred: .alert).message],
            "lints computed for a refused request whose body parsed")
    }
}
