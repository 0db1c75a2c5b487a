import Foundation
import HTTP2Client
import HTTPFields
import MockAPNs
import TestSupport
import XCTest

/// The push path to virtual devices on a running embedded server (docs/device-model.md §7): a
/// push answered 200 reaches its device's lifecycle at the server's clock; other tokens and
/// rejected pushes do not.
final class VirtualDevicePushPathTests: XCTestCase {
    let token = String(repeating: "ab", count: 32)
    let plainToken = String(repeating: "cd", count: 32)

    func makeServer(_ adjust: (inout Configuration) -> Void = { _ in }) throws -> MockAPNsServer {
        var configuration = Configuration()
        configuration.listeners[0].port = 0
        configuration.control = nil
        configuration.workers = 1
        configuration.drainTimeoutSeconds = 1
        adjust(&configuration)
        let server = MockAPNsServer(configuration: configuration)
        try server.start()
        return server
    }

    /// Sends `requests` on one TLS connection; the statuses answered.
    func send(_ server: MockAPNsServer, _ requests: [HTTP2ClientRequest]) throws -> [Int?] {
        let path = NSTemporaryDirectory() + "mockapns-\(UUID().uuidString).pem"
        try XCTUnwrap(server.certificatePEM(listener: 0)).write(toFile: path, atomically: true, encoding: .utf8)
        let connection = try HTTP2ClientConnection.connect(
            url: "https://localhost:\(server.listeners[0].port)", tls: HTTP2ClientTLSOptions(caCertificatePath: path),
            timeout: 5)
        defer { connection.close() }
        return connection.send(requests, timeout: 5).map { $0.response?.status }
    }

    func request(_ token: String, collapseID: String? = nil, topic: String = "com.example.app", body: String)
        -> HTTP2ClientRequest
    {
        var headers = [
            HeaderField(name: "apns-topic", value: topic), HeaderField(name: "apns-push-type", value: "alert"),
        ]
        if let collapseID { headers.append(HeaderField(name: "apns-collapse-id", value: collapseID)) }
        return HTTP2ClientRequest(path: "/3/device/\(token)", headers: headers, body: Array(body.utf8))
    }

    func testAcceptedPushesReachTheVirtualDeviceAndOthersDoNot() throws {
        let server = try makeServer()
        defer { server.stop() }
        try server.register(VirtualDevice(token: token, topic: "com.example.app", connectivity: .offline))
        let statuses = try send(
            server,
            [
                request(token, collapseID: "c", body: #"{"aps":{"alert":"one"}}"#),
                request(token, collapseID: "c", body: #"{"aps":{"alert":"two"}}"#),
                request(plainToken, body: #"{"aps":{"alert":"plain"}}"#),
                // Rejected (DeviceTokenNotForTopic is not answered 200): no lifecycle.
                request(token, topic: "com.other", body: #"{"aps":{"alert":"wrong topic"}}"#),
            ])
        XCTAssertEqual(statuses.first, 200)
        let records = server.deliveries()
        XCTAssertEqual(records.count, 4)
        let accepted = records.filter { $0.status == 200 && $0.verdict.deviceToken == token }.map(\.seq)
        XCTAssertEqual(accepted.count, 2)
        for record in records where !accepted.contains(record.seq) {
            XCTAssertNil(server.notification(seq: record.seq), "record \(record.seq) \(record.status)")
        }
        XCTAssertEqual(server.devices.lifecycle(of: token)?.stored?.push.id, accepted[1])
        try server.register(VirtualDevice(token: token, topic: "com.example.app", connectivity: .online))
        XCTAssertEqual(server.notification(seq: accepted[0])?.state, .replaced(by: accepted[1]))
        XCTAssertEqual(server.notification(seq: accepted[1])?.state, .delivered(fromStorage: true))
        XCTAssertEqual(server.notification(seq: accepted[1])?.reaction?.presentation.banner, true)
        // The device read the push as recorded: its collapse ID and payload.
        XCTAssertEqual(server.devices.lifecycle(of: token)?.shown.first?.push.collapseID, "c")
        XCTAssertEqual(server.devices.lifecycle(of: token)?.shown.first?.push.payload.alertHasText, true)
    }

    func testEachPushIsReadForItsOwnBodyOnOneConnection() throws {
        let server = try makeServer()
        defer { server.stop() }
        try server.register(VirtualDevice(token: token, topic: "com.example.app"))
        let alert = #"{"aps":{"alert":"hi"}}"#, badge = #"{"aps":{"badge":3}}"#
        let statuses = try send(
            server, [request(token, body: alert), request(token, body: alert), request(token, body: badge)])
        XCTAssertEqual(statuses, [200, 200, 200])
        let reactions = server.deliveries().map { server.notification(seq: $0.seq)?.reaction?.presentation }
        XCTAssertEqual(reactions.map { $0?.banner }, [true, true, false])
        XCTAssertEqual(reactions.map { $0?.badge }, [nil, nil, 3])
    }

    func testTheDevicesRunOnTheConfiguredModelSettings() throws {
        let server = try makeServer {
            $0.deviceModel.backgroundBudget = 0
            $0.deviceModel.overBudget = .drop
        }
        defer { server.stop() }
        try server.register(VirtualDevice(token: token, topic: "com.example.app"))
        let background = HTTP2ClientRequest(
            path: "/3/device/\(token)",
            headers: [
                HeaderField(name: "apns-topic", value: "com.example.app"),
                HeaderField(name: "apns-push-type", value: "background"),
                HeaderField(name: "apns-priority", value: "5"),
            ], body: Array(#"{"aps":{"content-available":1}}"#.utf8))
        XCTAssertEqual(try send(server, [background]), [200])
        let seq = try XCTUnwrap(server.deliveries().first?.seq)
        XCTAssertEqual(server.notification(seq: seq)?.state, .discarded(.backgroundBudget, fromStorage: false))
    }

    func testTheLifecycleRunsOnTheServerClock() throws {
        let server = try makeServer()
        defer { server.stop() }
        server.clock.offsetSeconds = 86_400
        try server.register(VirtualDevice(token: token, topic: "com.example.app"))
        XCTAssertEqual(try send(server, [request(token, body: #"{"aps":{"alert":"hi"}}"#)]), [200])
        let seq = try XCTUnwrap(server.deliveries().first?.seq)
        let at = try XCTUnwrap(server.notification(seq: seq)?.events.first?.at)
        XCTAssertEqual(at, Date().timeIntervalSince1970 + 86_400, accuracy: 60)
    }
}
