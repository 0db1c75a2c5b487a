import APNsCore
import Configuration
import LegacyBinary
import XCTest

@testable import MockAPNs

final class BinaryNotificationJudgeTests: XCTestCase {
    private let token = [UInt8](repeating: 0xAB, count: 32)
    private var hex: String { String(repeating: "ab", count: 32) }

    private func notification(payload: String = #"{"aps":{"alert":"hi"}}"#, priority: UInt8? = nil)
        -> BinaryNotification
    {
        BinaryNotification(
            command: .framed, identifier: 9, expiry: 1_800_000_000, priority: priority, token: token,
            payload: Array(payload.utf8))
    }

    private func judge(
        _ devices: [DeviceRegistration] = [], mode: RegistryMode = .open,
        answer: BinaryListenerConfiguration.UnregisteredAnswer = .invalidToken, lintsAsErrors: Bool = false
    ) -> BinaryNotificationJudge {
        var options = ValidationOptions()
        options.registry = mode
        options.lintsAsErrors = lintsAsErrors
        return BinaryNotificationJudge(
            listener: BinaryListenerConfiguration(kind: .binary, unregistered: answer), options: options,
            registry: DeviceRegistry(devices: devices))
    }

    func testTheRequestItStandsFor() {
        let request = BinaryNotificationJudge.request(for: notification(priority: 5), topic: "com.a", pushType: "alert")
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.path, "/3/device/" + hex)
        XCTAssertEqual(
            request.headers.map { "\($0.name): \($0.value)" },
            ["apns-topic: com.a", "apns-push-type: alert", "apns-priority: 5", "apns-expiration: 1800000000"])
    }

    func testAcceptedWithTheInferredPushTypeAndNoMissingPushTypeLint() {
        let judgement = judge().judge(notification(), topic: "com.a", nowMilliseconds: 0)
        XCTAssertNil(judgement.status)
        XCTAssertEqual(judgement.verdict.pushType, .alert)
        XCTAssertEqual(judgement.verdict.priority, 10, "commands without item 5 are priority 10")
        XCTAssertEqual(judgement.verdict.expiration, 1_800_000_000)
        XCTAssertEqual(judgement.verdict.lints, [])
    }

    func testNoTopicIsStatusThree() {
        XCTAssertEqual(judge().judge(notification(), topic: nil, nowMilliseconds: 0).status, .missingTopic)
    }

    func testPayloadNotJSONIsStatusOne() {
        XCTAssertEqual(
            judge().judge(notification(payload: "not json"), topic: "com.a", nowMilliseconds: 0).status,
            .processingError)
    }

    func testContentAvailableAtPriorityTenIsTheSameLint() {
        let background = notification(payload: #"{"aps":{"content-available":1}}"#)
        let lint = judge().judge(background, topic: "com.a", nowMilliseconds: 0)
        XCTAssertNil(lint.status)
        XCTAssertEqual(lint.verdict.pushType, .background)
        XCTAssertFalse(lint.verdict.lints.isEmpty, "the priority lint is recorded")
        XCTAssertEqual(
            judge(lintsAsErrors: true).judge(background, topic: "com.a", nowMilliseconds: 0).status, .protocolError)
        XCTAssertNil(
            judge(lintsAsErrors: true).judge(
                notification(payload: #"{"aps":{"content-available":1}}"#, priority: 5), topic: "com.a",
                nowMilliseconds: 0
            ).status)
    }

    func testRegistryRulesAreEightOrSilentAccept() {
        let sandbox = DeviceRegistration(token: hex, environment: .sandbox)
        let production = DeviceRegistration(token: hex, environment: .production)
        var unregistered = sandbox
        unregistered.unregisteredAt = 1_000
        var expired = sandbox
        expired.expired = true
        var otherTopic = sandbox
        otherTopic.topic = "com.other"
        let rows: [([DeviceRegistration], RegistryMode, BinaryStatus?)] = [
            ([], .open, nil), ([], .closed, .invalidToken), ([sandbox], .closed, nil),
            ([production], .open, .invalidToken),
            ([unregistered], .open, .invalidToken), ([expired], .open, .invalidToken),
            ([otherTopic], .open, .invalidToken),
        ]
        // Now is after the unregistration (1,000 ms): a moment still to come applies only from then.
        for (devices, mode, status) in rows {
            XCTAssertEqual(
                judge(devices, mode: mode).judge(notification(), topic: "com.a", nowMilliseconds: 2_000).status, status,
                "\(devices) \(mode)")
            XCTAssertNil(
                judge(devices, mode: mode, answer: .accept).judge(
                    notification(), topic: "com.a", nowMilliseconds: 2_000
                ).status)
        }
        XCTAssertNil(
            judge([unregistered], mode: .open).judge(notification(), topic: "com.a", nowMilliseconds: 500).status,
            "before its unregistration the token is still registered")
    }

    func testReasonTable() {
        XCTAssertEqual(BinaryNotificationJudge.status(for: .missingDeviceToken), .missingDeviceToken)
        XCTAssertEqual(BinaryNotificationJudge.status(for: .unregistered), .invalidToken)
        XCTAssertEqual(BinaryNotificationJudge.status(for: .badTopic), .invalidTopicSize)
        XCTAssertEqual(BinaryNotificationJudge.status(for: .payloadTooLarge), .invalidPayloadSize)
        XCTAssertEqual(BinaryNotificationJudge.status(for: .internalServerError), .unknown)
    }
}
