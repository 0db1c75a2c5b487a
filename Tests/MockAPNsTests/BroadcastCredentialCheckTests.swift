import APNsCore
import Broadcast
import Foundation
import HTTP2Client
import HTTPFields
import XCTest

@testable import MockAPNs

/// The credential check of channel and broadcast requests (docs/broadcast.md §3, step 2), and
/// the wiring on a provider listener.
final class BroadcastCredentialCheckTests: XCTestCase {
    /// Answers `byTopic[topic]` (nil topic: `withoutTopic`), recording the topics asked.
    final class FakeCheck: CredentialChecker {
        var byTopic: [String: Reason] = [:]
        var withoutTopic: Reason?
        var closes = false
        var asked: [String?] = []
        func check(_ verdict: ValidationResult, of request: HTTP2Request) -> AuthorizationResult? {
            asked.append(verdict.topic)
            let reason = verdict.topic.map { byTopic[$0] } ?? withoutTopic
            return AuthorizationResult(
                reason: reason, identity: CredentialIdentity(kind: "token", verdict: "test"), closesConnection: closes)
        }
        func settle(accepted: Bool) {}
    }

    let request = HTTP2Request(method: "GET", path: "/1/apps/com.x/all-channels", headers: [], body: [])

    func testRows() {
        let rows: [(topic: Reason?, withoutTopic: Reason?, expected: BroadcastReason?)] = [
            (nil, nil, nil),
            (.missingProviderToken, .missingProviderToken, .missingProviderToken),
            (.expiredProviderToken, .expiredProviderToken, .expiredProviderToken),
            (.topicDisallowed, nil, .topicMismatch),  // a certificate without the bundle ID
            (.invalidProviderToken, nil, .topicMismatch),  // a key whose scope leaves it out
            (.invalidProviderToken, .invalidProviderToken, .invalidProviderToken),  // a bad token
            (.unrelatedKeyIDInToken, .unrelatedKeyIDInToken, .unrelatedKeyIDInToken),
            (.badDeviceToken, nil, .invalidProviderToken),  // no such reason on this API
        ]
        for row in rows {
            let check = FakeCheck()
            check.byTopic = row.topic.map { ["com.x": $0] } ?? [:]
            check.withoutTopic = row.withoutTopic
            let outcome = BroadcastCredentialCheck.check(check, request: request, bundleID: "com.x")
            XCTAssertEqual(outcome.reason, row.expected, "\(row)")
            XCTAssertEqual(check.asked.first, "com.x")
        }
    }

    func testNoChecksMeansAuthorized() {
        let outcome = BroadcastCredentialCheck.check(NoCredentialCheck.shared, request: request, bundleID: "com.x")
        XCTAssertNil(outcome.reason)
        XCTAssertFalse(outcome.closesConnection)
    }

    func testARejectedCertificateEndsTheConnection() {
        let check = FakeCheck()
        check.byTopic = ["com.x": .badCertificate]
        check.closes = true
        let outcome = BroadcastCredentialCheck.check(check, request: request, bundleID: "com.x")
        XCTAssertEqual(outcome.reason, .badCertificate)
        XCTAssertTrue(outcome.closesConnection)
    }

    /// Channel calls and a broadcast on the provider listener, next to a device push.
    func testTheProviderListenerServesChannelsAndBroadcasts() throws {
        var configuration = Configuration()
        configuration.listeners[0].port = 0
        configuration.control = nil
        configuration.workers = 1
        configuration.drainTimeoutSeconds = 1
        let server = MockAPNsServer(configuration: configuration)
        try server.start()
        defer { server.stop() }
        let path = NSTemporaryDirectory() + "mockapns-\(UUID().uuidString).pem"
        try XCTUnwrap(server.certificatePEM(listener: 0)).write(toFile: path, atomically: true, encoding: .utf8)
        let connection = try HTTP2ClientConnection.connect(
            url: "https://localhost:\(server.listeners[0].port)",
            tls: HTTP2ClientTLSOptions(caCertificatePath: path), timeout: 5)
        defer { connection.close() }
        func send(_ request: HTTP2ClientRequest) throws -> HTTP2ClientResponse {
            let result = try XCTUnwrap(connection.send([request], timeout: 5).first)
            return try XCTUnwrap(result.response, "\(result.outcome)")
        }
        let created = try send(
            HTTP2ClientRequest(
                path: "/1/apps/com.example.app/channels",
                body: Array(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#.utf8)))
        XCTAssertEqual(created.status, 201)
        let id = try XCTUnwrap(created.headers.first { $0.name == "apns-channel-id" }?.value)
        XCTAssertNotNil(created.headers.first { $0.name == "apns-request-id" })
        XCTAssertEqual(
            server.broadcast.store.channels(bundleID: "com.example.app", environment: .sandbox).map(\.id), [id])
        let sent = try send(
            HTTP2ClientRequest(
                path: "/4/broadcasts/apps/com.example.app",
                headers: [
                    HeaderField(name: "apns-channel-id", value: id),
                    HeaderField(name: "apns-push-type", value: "liveactivity"),
                ],
                body: Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#.utf8)))
        XCTAssertEqual(sent.status, 200)
        let missing = try send(HTTP2ClientRequest(method: "GET", path: "/1/apps/com.example.app/channels"))
        XCTAssertEqual(missing.status, 400)
        XCTAssertEqual(String(decoding: missing.body, as: UTF8.self), #"{"reason":"MissingChannelId"}"#)
        let unknown = try send(HTTP2ClientRequest(path: "/4/other"))
        XCTAssertEqual(unknown.status, 404)
        let push = try send(
            HTTP2ClientRequest(
                path: "/3/device/" + String(repeating: "ab", count: 32),
                headers: [HeaderField(name: "apns-topic", value: "com.example.app")],
                body: Array(#"{"aps":{"alert":"hi"}}"#.utf8)))
        XCTAssertEqual(push.status, 200)

        // Every request recorded, by kind (docs/broadcast.md §4).
        var filter = DeliveryFilter()
        filter.kind = .channel
        let channelRecords = server.deliveries(matching: filter)
        XCTAssertEqual(channelRecords.map(\.status), [201, 400])
        XCTAssertEqual(channelRecords.map(\.reason), [nil, .missingChannelID])
        XCTAssertEqual(channelRecords.first?.verdict.topic, "com.example.app")
        XCTAssertEqual(channelRecords.first?.apnsID, created.headers.first { $0.name == "apns-request-id" }?.value)
        filter.kind = .broadcast
        let broadcasts = server.deliveries(matching: filter)
        XCTAssertEqual(broadcasts.map(\.status), [200, 404])
        XCTAssertEqual(broadcasts.first?.channelID, id)
        XCTAssertEqual(broadcasts.first?.verdict.pushType, .liveactivity)
        XCTAssertEqual(broadcasts.first?.verdict.priority, 10)
        filter.kind = nil
        filter.channelID = id
        // The create named no channel; its record is the channel's too (docs/broadcast.md §4).
        XCTAssertEqual(
            server.deliveries(matching: filter).map(\.path),
            ["/1/apps/com.example.app/channels", "/4/broadcasts/apps/com.example.app"])
        XCTAssertEqual(server.deliveries(matching: filter).map(\.status), [201, 200])
        filter.channelID = nil
        filter.kind = .push
        XCTAssertEqual(server.deliveries(matching: filter).count, 1)
    }
}
