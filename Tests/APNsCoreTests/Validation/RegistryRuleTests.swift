import APNsCore
import XCTest

@testable import TestFixtures

/// Registry outcomes (docs/apns-behaviour.md §9: unknown tokens, other environment, 410s).
final class RegistryRuleTests: XCTestCase {
    typealias F = ValidationFixture

    func device(
        topic: String? = F.topic, environment: APNsEnvironment = .sandbox, unregisteredAt: Int64? = nil,
        expired: Bool = false
    ) -> [DeviceRegistration] {
        [
            DeviceRegistration(
                token: F.token, topic: topic, environment: environment, unregisteredAt: unregisteredAt,
                expired: expired)
        ]
    }

    func testRegistryTable() {
        let closed = ValidationOptions(registry: .closed)
        let rows = [
            ValidationRow("registered, same environment and topic", F.request(), nil, devices: device()),
            ValidationRow(
                "registered for production, sandbox listener", F.request(), .badDeviceToken,
                devices: device(environment: .production)),
            ValidationRow(
                "registered for sandbox, production listener", F.request(), .badDeviceToken,
                environment: .production, devices: device()),
            ValidationRow(
                "registered for another topic", F.request(), .deviceTokenNotForTopic,
                devices: device(topic: "com.example.other")),
            ValidationRow(
                "registered for the bundle ID, voip push to its .voip topic",
                F.request(replacing: ["apns-push-type": "voip", "apns-topic": "com.example.app.voip"]), nil,
                devices: device()),
            ValidationRow(
                "registered for the bundle ID, another app's .voip topic",
                F.request(replacing: ["apns-push-type": "voip", "apns-topic": "com.example.other.voip"]),
                .deviceTokenNotForTopic, devices: device()),
            ValidationRow(
                "registered without a topic", F.request(replacing: ["apns-topic": "com.any.app"]), nil,
                devices: device(topic: nil)),
            ValidationRow(
                "unregistered", F.request(), .unregistered, devices: device(unregisteredAt: 1_690_000_000_000)),
            ValidationRow(
                "expired with a time", F.request(), .expiredToken,
                devices: device(unregisteredAt: 1_680_000_000_000, expired: true)),
            ValidationRow("expired without a time", F.request(), .expiredToken, devices: device(expired: true)),
            ValidationRow("unknown, open registry", F.request(), nil),
            ValidationRow("unknown, closed registry", F.request(), .badDeviceToken, options: closed),
            ValidationRow("known, closed registry", F.request(), nil, options: closed, devices: device()),
            ValidationRow(
                "other environment, closed registry", F.request(), .badDeviceToken, options: closed,
                environment: .production, devices: device()),
        ]
        let verdicts = check(rows)
        XCTAssertEqual(verdicts[7].timestamp, 1_690_000_000_000)
        XCTAssertEqual(verdicts[7].status, 410)
        XCTAssertEqual(verdicts[8].timestamp, 1_680_000_000_000, "unregisteredAt wins over now")
        XCTAssertEqual(verdicts[9].timestamp, F.now, "now when the device has no time")
        XCTAssertNil(verdicts[0].timestamp)
        XCTAssertNil(verdicts[1].timestamp, "only 410s carry a timestamp")
    }

    /// Issue 19 §5: a future `unregisteredAt` applies only from that moment, to the millisecond.
    func testAFutureUnregistrationAppliesOnlyFromThatMoment() {
        let rows = [
            ValidationRow(
                "unregistered a second from now", F.request(), nil, devices: device(unregisteredAt: F.now + 1000)),
            ValidationRow(
                "unregistered in 9999", F.request(), nil, devices: device(unregisteredAt: 253_402_300_799_999)),
            ValidationRow(
                "expired from a second from now", F.request(), nil,
                devices: device(unregisteredAt: F.now + 1000, expired: true)),
            ValidationRow("unregistered now", F.request(), .unregistered, devices: device(unregisteredAt: F.now)),
            ValidationRow(
                "expired a millisecond ago", F.request(), .expiredToken,
                devices: device(unregisteredAt: F.now - 1, expired: true)),
        ]
        let verdicts = check(rows)
        XCTAssertEqual(verdicts[3].timestamp, F.now)
        XCTAssertEqual(verdicts[4].timestamp, F.now - 1)
    }

    func testRegistryIsNotConsultedForRefusedRequests() {
        var calls = 0
        let verdict = RequestValidator.validate(
            F.request(extra: [("apns-priority", "7")]), environment: .sandbox,
            options: ValidationOptions(), nowMilliseconds: F.now
        ) { _ in
            calls += 1
            return nil
        }
        XCTAssertEqual(verdict.reason, .badPriority)
        XCTAssertEqual(calls, 0)
    }
}
