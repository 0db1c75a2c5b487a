import APNsCore
import XCTest

@testable import TestFixtures

/// One reason per request, in APNs's order (docs/apns-behaviour.md §9 "Order of checks"), and every
/// parsable field recorded even on refusal.
final class CheckOrderTests: XCTestCase {
    typealias F = ValidationFixture

    func testEarlierCheckWins() {
        let dup = ("apns-topic", F.topic)
        let unregistered = [DeviceRegistration(token: F.token, environment: .sandbox, unregisteredAt: 1)]
        check([
            ValidationRow("method before path", F.request(method: "GET", path: "/nope"), .methodNotAllowed),
            ValidationRow("path before duplicates", F.request(path: "/nope", extra: [dup]), .badPath),
            ValidationRow(
                "missing token before duplicates", F.request(path: "/3/device/", extra: [dup]),
                .missingDeviceToken),
            ValidationRow("duplicates before apns-id", F.request(extra: [dup, ("apns-id", "x")]), .duplicateHeaders),
            ValidationRow(
                "apns-id before expiration", F.request(extra: [("apns-expiration", "x"), ("apns-id", "x")]),
                .badMessageID),
            ValidationRow(
                "expiration before priority", F.request(extra: [("apns-priority", "2"), ("apns-expiration", "x")]),
                .badExpirationDate),
            ValidationRow(
                "priority before push type",
                F.request(replacing: ["apns-push-type": "x"], extra: [("apns-priority", "2")]), .badPriority),
            ValidationRow(
                "push type before collapse id",
                F.request(
                    replacing: ["apns-push-type": "x"],
                    extra: [("apns-collapse-id", String(repeating: "c", count: 65))]), .invalidPushType),
            ValidationRow(
                "collapse id before token",
                F.request(token: "xyz", extra: [("apns-collapse-id", String(repeating: "c", count: 65))]),
                .badCollapseID),
            ValidationRow(
                "priority before token", F.request(token: "xyz", extra: [("apns-priority", "7")]), .badPriority),
            ValidationRow(
                "token before missing topic", F.request(token: "xyz", removing: ["apns-topic"]), .badDeviceToken),
            ValidationRow(
                "token before bad topic", F.request(token: "xyz", replacing: ["apns-topic": "a b"]), .badDeviceToken),
            ValidationRow(
                "topic before suffix", F.request(replacing: ["apns-push-type": "voip", "apns-topic": "a b.voip"]),
                .badTopic),
            ValidationRow(
                "suffix before registry",
                F.request(replacing: ["apns-push-type": "voip"]), .deviceTokenNotForTopic, devices: unregistered),
            ValidationRow("registry before empty payload", F.request(body: ""), .unregistered, devices: unregistered),
            ValidationRow(
                "registry before oversized payload", F.request(body: String(repeating: " ", count: 4097)),
                .unregistered, devices: unregistered),
            ValidationRow(
                "closed registry before payload", F.request(body: "[]"), .badDeviceToken,
                options: ValidationOptions(registry: .closed)),
            ValidationRow(
                "empty payload before lints", F.request(removing: ["apns-push-type"], body: ""), .payloadEmpty,
                options: ValidationOptions(lintsAsErrors: true)),
            ValidationRow(
                "invalid JSON before lints", F.request(removing: ["apns-push-type"], body: "[]"), .payloadEmpty,
                options: ValidationOptions(lintsAsErrors: true)),
        ])
    }

    func testRefusedRequestStillRecordsEverythingParsed() {
        let id = "5A1F3C2E-8B4D-4E6F-9A0B-1C2D3E4F5A6B"
        let request = F.request(
            method: "PUT", token: DeviceTokenRuleTests.hex64.uppercased(),
            removing: ["apns-push-type"],
            extra: [
                ("apns-id", id), ("apns-expiration", "0"), ("apns-priority", "5"),
                ("apns-collapse-id", "group-1"),
            ],
            body: #"{"aps":{"content-available":1}}"#)
        let verdict = F.validate(request)
        XCTAssertEqual(verdict.reason, .methodNotAllowed)
        XCTAssertEqual(verdict.status, 405)
        XCTAssertEqual(verdict.deviceToken, DeviceTokenRuleTests.hex64)
        XCTAssertEqual(verdict.topic, F.topic)
        XCTAssertEqual(verdict.apnsID, id)
        XCTAssertEqual(verdict.expiration, 0)
        XCTAssertEqual(verdict.priority, 5)
        XCTAssertEqual(verdict.collapseID, "group-1")
        XCTAssertNil(verdict.pushTypeSent)
        XCTAssertEqual(verdict.pushType, .background)
        XCTAssertEqual(verdict.lints, [PayloadLint.missingPushType(inferred: .background).message])
        XCTAssertNil(verdict.timestamp)
    }

    func testAcceptedVerdictIsComplete() {
        let verdict = F.validate(F.request(extra: [("apns-expiration", "1700003600")]))
        XCTAssertEqual(
            verdict,
            ValidationResult(
                reason: nil, timestamp: nil, deviceToken: F.token, topic: F.topic,
                pushTypeSent: "alert", pushType: .alert, priority: 10, expiration: 1_700_003_600,
                collapseID: nil, apnsID: nil, lints: [], payloadError: nil))
    }
}
