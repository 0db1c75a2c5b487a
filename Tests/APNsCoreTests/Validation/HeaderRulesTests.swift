import APNsCore
import XCTest

@testable import TestFixtures

/// The APNs request headers (docs/apns-behaviour.md §1.2) and `DuplicateHeaders`.
final class HeaderRulesTests: XCTestCase {
    typealias F = ValidationFixture

    func testMessageIDTable() {
        let lower = "5a1f3c2e-8b4d-4e6f-9a0b-1c2d3e4f5a6b"
        let upper = "5A1F3C2E-8B4D-4E6F-9A0B-1C2D3E4F5A6B"
        let rows = [
            ValidationRow("lowercase UUID", F.request(extra: [("apns-id", lower)]), nil),
            ValidationRow("uppercase UUID", F.request(extra: [("apns-id", upper)]), nil),
            ValidationRow("not a UUID", F.request(extra: [("apns-id", "not-a-uuid")]), .badMessageID),
            ValidationRow(
                "no hyphens", F.request(extra: [("apns-id", "5a1f3c2e8b4d4e6f9a0b1c2d3e4f5a6b")]), .badMessageID),
            ValidationRow(
                "non-hex digit", F.request(extra: [("apns-id", "5a1f3c2e-8b4d-4e6f-9a0b-1c2d3e4f5a6g")]), .badMessageID),
            ValidationRow(
                "hyphen misplaced", F.request(extra: [("apns-id", "5a1f3c2e8-b4d-4e6f-9a0b-1c2d3e4f5a6b")]),
                .badMessageID),
            ValidationRow("braces", F.request(extra: [("apns-id", "{\(lower)}")]), .badMessageID),
            ValidationRow("one digit short", F.request(extra: [("apns-id", String(lower.dropLast()))]), .badMessageID),
            ValidationRow("empty", F.request(extra: [("apns-id", "")]), .badMessageID),
        ]
        let verdicts = check(rows)
        XCTAssertEqual(verdicts[0].apnsID, lower, "echoed exactly")
        XCTAssertEqual(verdicts[1].apnsID, upper, "echoed exactly, case kept")
        XCTAssertNil(verdicts[2].apnsID, "an invalid id is not echoed")
        XCTAssertNil(F.validate(F.request()).apnsID, "absent stays nil")
    }

    func testExpirationTable() {
        let rows = [
            ValidationRow("zero", F.request(extra: [("apns-expiration", "0")]), nil),
            ValidationRow("epoch seconds", F.request(extra: [("apns-expiration", "1700003600")]), nil),
            ValidationRow("float", F.request(extra: [("apns-expiration", "1700003600.5")]), .badExpirationDate),
            ValidationRow("negative", F.request(extra: [("apns-expiration", "-1")]), .badExpirationDate),
            ValidationRow("plus sign", F.request(extra: [("apns-expiration", "+5")]), .badExpirationDate),
            ValidationRow("exponent", F.request(extra: [("apns-expiration", "1e9")]), .badExpirationDate),
            ValidationRow("word", F.request(extra: [("apns-expiration", "tomorrow")]), .badExpirationDate),
            ValidationRow("empty", F.request(extra: [("apns-expiration", "")]), .badExpirationDate),
            ValidationRow("leading space", F.request(extra: [("apns-expiration", " 5")]), .badExpirationDate),
            ValidationRow(
                "beyond Int64", F.request(extra: [("apns-expiration", "99999999999999999999")]), .badExpirationDate),
        ]
        let verdicts = check(rows)
        XCTAssertEqual(verdicts[0].expiration, 0)
        XCTAssertEqual(verdicts[1].expiration, 1_700_003_600)
        XCTAssertNil(verdicts[2].expiration)
    }

    func testPriorityTable() {
        let rows = [
            ValidationRow("10", F.request(extra: [("apns-priority", "10")]), nil),
            ValidationRow("5", F.request(extra: [("apns-priority", "5")]), nil),
            ValidationRow("1", F.request(extra: [("apns-priority", "1")]), nil),
            ValidationRow("0", F.request(extra: [("apns-priority", "0")]), .badPriority),
            ValidationRow("3", F.request(extra: [("apns-priority", "3")]), .badPriority),
            ValidationRow("11", F.request(extra: [("apns-priority", "11")]), .badPriority),
            ValidationRow("high", F.request(extra: [("apns-priority", "high")]), .badPriority),
            ValidationRow("empty", F.request(extra: [("apns-priority", "")]), .badPriority),
            ValidationRow("-5", F.request(extra: [("apns-priority", "-5")]), .badPriority),
            ValidationRow("5.0", F.request(extra: [("apns-priority", "5.0")]), .badPriority),
        ]
        let verdicts = check(rows)
        XCTAssertEqual(verdicts[0...2].map(\.priority), [10, 5, 1])
        XCTAssertNil(verdicts[3].priority)
        XCTAssertEqual(F.validate(F.request()).priority, 10, "default when absent")
    }

    func testPushTypeTable() {
        let topics: [PushType: String] = [
            .alert: "com.example.app", .background: "com.example.app", .voip: "com.example.app.voip",
            .complication: "com.example.app.complication", .fileprovider: "com.example.app.pushkit.fileprovider",
            .mdm: "com.apple.mgmt.External.5a1f3c2e-8b4d-4e6f-9a0b-1c2d3e4f5a6b",
            .location: "com.example.app.location-query", .liveactivity: "com.example.app.push-type.liveactivity",
            .pushtotalk: "com.example.app.voip-ptt", .widgets: "com.example.app.push-type.widgets",
            .controls: "com.example.app.push-type.controls",
        ]
        XCTAssertEqual(topics.count, PushType.allCases.count)
        for type in PushType.allCases {
            let request = F.request(replacing: ["apns-push-type": type.rawValue, "apns-topic": topics[type]!])
            let verdict = F.validate(request)
            XCTAssertNil(verdict.reason, type.rawValue)
            XCTAssertEqual(verdict.pushType, type)
            XCTAssertEqual(verdict.pushTypeSent, type.rawValue)
        }
        let verdicts = check([
            ValidationRow("unknown value", F.request(replacing: ["apns-push-type": "notification"]), .invalidPushType),
            ValidationRow("capitalised", F.request(replacing: ["apns-push-type": "Alert"]), .invalidPushType),
            ValidationRow("empty", F.request(replacing: ["apns-push-type": ""]), .invalidPushType),
        ])
        XCTAssertEqual(verdicts[0].pushTypeSent, "notification", "recorded as sent")
        XCTAssertEqual(verdicts[0].pushType, .alert, "rules fall back to the inferred type")
    }

    func testCollapseIDCountsUTF8Bytes() {
        let rows = [
            ValidationRow(
                "64 ASCII bytes", F.request(extra: [("apns-collapse-id", String(repeating: "c", count: 64))]), nil),
            ValidationRow(
                "65 ASCII bytes", F.request(extra: [("apns-collapse-id", String(repeating: "c", count: 65))]),
                .badCollapseID),
            ValidationRow(
                "32 × é = 64 bytes", F.request(extra: [("apns-collapse-id", String(repeating: "é", count: 32))]), nil),
            ValidationRow(
                "33 × é = 66 bytes, 33 characters",
                F.request(extra: [("apns-collapse-id", String(repeating: "é", count: 33))]), .badCollapseID),
            ValidationRow("empty", F.request(extra: [("apns-collapse-id", "")]), nil),
        ]
        let verdicts = check(rows)
        XCTAssertEqual(verdicts[1].collapseID, String(repeating: "c", count: 65), "recorded even when refused")
    }

    func testDuplicateHeadersTable() {
        check([
            ValidationRow("apns-topic twice", F.request(extra: [("apns-topic", F.topic)]), .duplicateHeaders),
            ValidationRow("apns-push-type twice", F.request(extra: [("apns-push-type", "alert")]), .duplicateHeaders),
            ValidationRow(
                "apns-id twice, same value",
                F.request(extra: [
                    ("apns-id", "5a1f3c2e-8b4d-4e6f-9a0b-1c2d3e4f5a6b"),
                    ("apns-id", "5a1f3c2e-8b4d-4e6f-9a0b-1c2d3e4f5a6b"),
                ]), .duplicateHeaders),
            ValidationRow(
                "apns-priority twice", F.request(extra: [("apns-priority", "10"), ("apns-priority", "5")]),
                .duplicateHeaders),
            ValidationRow(
                "apns-expiration twice", F.request(extra: [("apns-expiration", "0"), ("apns-expiration", "0")]),
                .duplicateHeaders),
            ValidationRow(
                "apns-collapse-id twice", F.request(extra: [("apns-collapse-id", "a"), ("apns-collapse-id", "b")]),
                .duplicateHeaders),
            ValidationRow(
                "authorization twice",
                F.request(extra: [("authorization", "bearer a"), ("authorization", "bearer a")]),
                .duplicateHeaders),
            ValidationRow(
                "other header twice, apart",
                F.request(extra: [
                    ("user-agent", "x"), ("apns-id", "5a1f3c2e-8b4d-4e6f-9a0b-1c2d3e4f5a6b"),
                    ("user-agent", "y"),
                ]), .duplicateHeaders),
            ValidationRow(
                "cookie crumbs are not a repeat", F.request(extra: [("cookie", "a=1"), ("cookie", "b=2")]), nil),
            ValidationRow(
                "distinct headers",
                F.request(extra: [
                    ("user-agent", "x"), ("authorization", "bearer a"),
                    ("content-type", "application/json"),
                ]), nil),
        ])
    }
}
