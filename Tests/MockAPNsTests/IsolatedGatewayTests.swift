import APNsCore
import Foundation
import HTTP2Client
import HTTPFields
import MockAPNs
import Recording
import Synchronization
import TestSupport
import XCTest

/// Isolated gateways in-process (docs/testing.md "Isolated gateways"): each sees only its own
/// pushes, the default sees none of them, deleting closes the port, and an untouched one expires.
final class IsolatedGatewayTests: XCTestCase {
    let token = String(repeating: "ab", count: 32)

    private func makeServer(_ adjust: (inout Configuration) -> Void = { _ in }) throws -> MockAPNsServer {
        var configuration = Configuration()
        configuration.listeners[0].port = 0
        configuration.control = ControlConfiguration(host: "127.0.0.1", port: 0)
        configuration.workers = 2
        configuration.drainTimeoutSeconds = 1
        adjust(&configuration)
        let server = MockAPNsServer(configuration: configuration)
        try server.start()
        return server
    }

    private func trustFile(_ server: MockAPNsServer) throws -> String {
        let path = NSTemporaryDirectory() + "mockapns-\(UUID().uuidString).pem"
        try XCTUnwrap(server.certificatePEM(listener: 0)).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `count` pushes to `port` with topic `topic`; their statuses.
    private func push(_ server: MockAPNsServer, port: Int, topic: String, count: Int = 1) throws -> [Int] {
        let connection = try HTTP2ClientConnection.connect(
            url: "https://127.0.0.1:\(port)", tls: HTTP2ClientTLSOptions(caCertificatePath: try trustFile(server)),
            timeout: 5)
        defer { connection.close() }
        let requests = (0..<count).map { _ in
            HTTP2ClientRequest(
                path: "/3/device/\(token)", headers: [HeaderField(name: "apns-topic", value: topic)],
                body: Array(#"{"aps":{"alert":"hi"}}"#.utf8))
        }
        return try connection.send(requests, timeout: 5).map { try XCTUnwrap($0.response).status }
    }

    /// A control request with curl: (HTTP status, body).
    private func control(_ server: MockAPNsServer, _ method: String, _ path: String, body: String? = nil) throws -> (
        Int, String
    ) {
        try Self.curl(try XCTUnwrap(server.controlURL), method, path, body: body)
    }

    /// A control request with curl to `base`: (HTTP status, body).
    private static func curl(
        _ base: String, _ method: String, _ path: String, body: String? = nil, maxTime: Int? = nil
    ) throws -> (Int, String) {
        var arguments = ["-sS", "-X", method, "-w", "\n%{http_code}", base + path]
        if let maxTime { arguments += ["--max-time", String(maxTime)] }
        if let body { arguments += ["-H", "content-type: application/json", "-d", body] }
        let result = try ProcessRunner.run("/usr/bin/curl", arguments)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func testTwoGatewaysSeeOnlyTheirOwnPushesAndTheDefaultSeesNeither() throws {
        let server = try makeServer()
        defer { server.stop() }
        let a = try server.createGateway(GatewayOptions(name: "suite-a"))
        let (status, body) = try control(server, "POST", "/v1/gateways", body: #"{"name":"suite-b","ttlSeconds":0}"#)
        XCTAssertEqual(status, 201, body)
        let created = try json(body)
        let b = try XCTUnwrap(created["port"] as? Int)
        XCTAssertEqual(created["controlBase"] as? String, "/v1/gateways/g2")
        XCTAssertTrue(created["expiresAt"] is NSNull, "ttlSeconds 0 never expires")
        XCTAssertNotEqual(a.port, b)
        XCTAssertNotEqual(a.port, server.listeners[0].port)

        XCTAssertEqual(try push(server, port: a.port, topic: "com.example.a", count: 2), [200, 200])
        XCTAssertEqual(try push(server, port: b, topic: "com.example.b", count: 3), [200, 200, 200])

        XCTAssertEqual(a.store.query(DeliveryFilter(), limit: nil).deliveries.map(\.listener), ["suite-a", "suite-a"])
        XCTAssertEqual(server.deliveries().count, 0, "the default gateway sees neither")
        let (listed, text) = try control(server, "GET", "/v1/gateways/g2/v1/deliveries")
        XCTAssertEqual(listed, 200)
        let deliveries = try XCTUnwrap(try json(text)["deliveries"] as? [[String: Any]])
        XCTAssertEqual(deliveries.compactMap { $0["topic"] as? String }, Array(repeating: "com.example.b", count: 3))
        XCTAssertEqual(Set(deliveries.compactMap { $0["listener"] as? String }), ["suite-b"])
        let (_, waited) = try control(server, "GET", "/v1/gateways/g1/v1/deliveries/wait?count=2&timeoutMs=2000")
        XCTAssertEqual(try json(waited)["complete"] as? Bool, true)
        let (_, own) = try control(server, "GET", "/v1/deliveries")
        XCTAssertEqual((try json(own)["deliveries"] as? [Any])?.count, 0)

        // Fault rules are per gateway too.
        XCTAssertEqual(
            try control(
                server, "POST", "/v1/gateways/g1/v1/faults", body: #"{"action":{"type":"respond","status":500}}"#
            ).0, 201)
        XCTAssertEqual(try push(server, port: a.port, topic: "com.example.a"), [500])
        XCTAssertEqual(try push(server, port: b, topic: "com.example.b"), [200])
        XCTAssertEqual(try push(server, port: server.listeners[0].port, topic: "com.example"), [200])

        XCTAssertEqual(server.gateways.map(\.id), ["g1", "g2"])
        XCTAssertEqual(try control(server, "GET", "/v1/gateways/g3/v1/deliveries").0, 404)
    }

    func testDeletingAGatewayClosesItsPortAndAnswersItsWaits() throws {
        let server = try makeServer()
        defer { server.stop() }
        let gateway = try server.createGateway()
        XCTAssertEqual(try push(server, port: gateway.port, topic: "com.example"), [200])
        let waitDone = expectation(description: "the pending wait is answered")
        let answer = Mutex<(Int, String)>((0, ""))
        let base = try XCTUnwrap(server.controlURL)
        let path = "/v1/gateways/\(gateway.id)/v1/deliveries/wait?count=9&timeoutMs=20000"
        DispatchQueue.global().async {
            let result = (try? Self.curl(base, "GET", path)) ?? (0, "")
            answer.withLock { $0 = result }
            waitDone.fulfill()
        }
        usleep(300_000)
        let start = Date()
        let (status, body) = try control(server, "DELETE", "/v1/gateways/\(gateway.id)")
        XCTAssertEqual(status, 200, body)
        XCTAssertEqual(body, #"{"deleted":"g1"}"#)
        wait(for: [waitDone], timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        let (waitStatus, waited) = answer.withLock { $0 }
        XCTAssertEqual(waitStatus, 200, waited)
        XCTAssertEqual(try json(waited)["complete"] as? Bool, false)
        XCTAssertEqual(try json(waited)["matched"] as? Int, 1)
        XCTAssertEqual(try json(waited)["gatewayDeleted"] as? Bool, true, "the answer says why it came")
        XCTAssertThrowsError(try push(server, port: gateway.port, topic: "com.example"), "the port is closed")
        XCTAssertEqual(try control(server, "GET", "/v1/gateways/\(gateway.id)").0, 404)
        XCTAssertEqual(try control(server, "DELETE", "/v1/gateways/\(gateway.id)").0, 404)
        XCTAssertFalse(server.removeGateway(id: gateway.id))
        XCTAssertEqual(try push(server, port: server.listeners[0].port, topic: "com.example"), [200])
    }

    func testDeletingAGatewayWithAStalledStreamAnswersAtOnceAndClosesItsConnectionAfterTheDrain() throws {
        let server = try makeServer()
        defer { server.stop() }
        let (created, body) = try control(
            server, "POST", "/v1/gateways", body: #"{"faults":{"action":{"type":"noResponse"}}}"#)
        XCTAssertEqual(created, 201, body)
        let port = try XCTUnwrap(try json(body)["port"] as? Int)
        let trust = try trustFile(server)
        let ended = expectation(description: "the stalled push's connection ends")
        let token = token
        DispatchQueue.global().async {
            if let connection = try? HTTP2ClientConnection.connect(
                url: "https://127.0.0.1:\(port)", tls: HTTP2ClientTLSOptions(caCertificatePath: trust), timeout: 5)
            {
                _ = connection.send(
                    [HTTP2ClientRequest(path: "/3/device/\(token)", body: Array(#"{"aps":{"alert":"hi"}}"#.utf8))],
                    timeout: 8)
                connection.close()
            }
            ended.fulfill()
        }
        let stalled = Date()
        while try control(server, "GET", "/v1/gateways/g1/v1/deliveries").1.contains(#""seq":1"#) == false {
            XCTAssertLessThan(Date().timeIntervalSince(stalled), 5, "the push reached the gateway")
            usleep(20_000)
        }
        let start = Date()
        let (status, deleted) = try control(server, "DELETE", "/v1/gateways/g1")
        XCTAssertEqual(status, 200, deleted)
        // Before, the control thread waited for the drain (1 s) and the close (up to 1 s more).
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.5, "the DELETE is not held for the drain")
        XCTAssertEqual(try control(server, "GET", "/v1/health").0, 200, "the control API answers meanwhile")
        wait(for: [ended], timeout: 6)
        XCTAssertLessThan(Date().timeIntervalSince(start), 4, "the stalled connection is closed after the drain")
    }

    func testAnUntouchedGatewayExpiresAfterItsTTLAndActivityKeepsOneAlive() throws {
        let server = try makeServer()
        defer { server.stop() }
        let idle = try server.createGateway(GatewayOptions(ttlSeconds: 1))
        let busy = try server.createGateway(GatewayOptions(ttlSeconds: 1))
        let start = Date()
        while Date().timeIntervalSince(start) < 2.6 {
            XCTAssertEqual(try push(server, port: busy.port, topic: "com.example"), [200])
            usleep(300_000)
        }
        XCTAssertEqual(server.gateways.map(\.id), [busy.id], "the idle one expired, the busy one lives")
        XCTAssertThrowsError(try push(server, port: idle.port, topic: "com.example"))
        XCTAssertEqual(try control(server, "GET", "/v1/gateways/\(idle.id)").0, 404)
    }

    /// A `curl -N` on `path` of `server`'s control API, left running for `seconds`.
    private func openStream(_ server: MockAPNsServer, _ path: String, seconds: Int = 6) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "-N", "--max-time", String(seconds), try XCTUnwrap(server.controlURL) + path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    func testAWaitAnsweredByATTLExpirySaysTheGatewayWasDeleted() throws {
        let server = try makeServer()
        defer { server.stop() }
        let gateway = try server.createGateway(GatewayOptions(ttlSeconds: 1))
        let (status, waited) = try control(
            server, "GET", "/v1/gateways/\(gateway.id)/v1/deliveries/wait?count=1&timeoutMs=8000")
        XCTAssertEqual(status, 200, waited)
        XCTAssertEqual(try json(waited)["complete"] as? Bool, false)
        XCTAssertEqual(try json(waited)["gatewayDeleted"] as? Bool, true)
        XCTAssertEqual(server.gateways.count, 0, "it expired")
        let plain = try control(server, "GET", "/v1/deliveries/wait?count=1&timeoutMs=50").1
        XCTAssertNil(try json(plain)["gatewayDeleted"], "a wait that timed out is not marked")
    }

    func testAVerifyAnsweredByATTLExpirySaysSoInItsMessage() throws {
        let server = try makeServer()
        defer { server.stop() }
        let gateway = try server.createGateway(GatewayOptions(ttlSeconds: 1))
        let (status, answered) = try control(
            server, "POST", "/v1/gateways/\(gateway.id)/v1/verify", body: #"{"never": true, "withinMs": 8000}"#)
        XCTAssertEqual(status, 200, answered)
        XCTAssertEqual(try json(answered)["gatewayDeleted"] as? Bool, true)
        XCTAssertEqual(
            try json(answered)["message"] as? String,
            "verified: no push matching any push within 8000 ms; 0 matched; the gateway was deleted before the window ended"
        )
        let plain = try control(server, "POST", "/v1/verify", body: #"{"never": true, "withinMs": 50}"#).1
        XCTAssertEqual(
            try json(plain)["message"] as? String, "verified: no push matching any push within 50 ms; 0 matched")
    }

    func testAnOpenLiveStreamKeepsAGatewayAlive() throws {
        let server = try makeServer()
        defer { server.stop() }
        let watched = try server.createGateway(GatewayOptions(ttlSeconds: 1))
        let idle = try server.createGateway(GatewayOptions(ttlSeconds: 1))
        let stream = try openStream(server, "/v1/gateways/\(watched.id)/v1/deliveries/stream", seconds: 4)
        usleep(2_600_000)
        XCTAssertEqual(server.gateways.map(\.id), [watched.id], "the watched one lives, the idle one expired")
        XCTAssertNotEqual(idle.id, watched.id)
        stream.terminate()
        stream.waitUntilExit()
        let start = Date()
        while !server.gateways.isEmpty && Date().timeIntervalSince(start) < 5 { usleep(100_000) }
        XCTAssertEqual(server.gateways.count, 0, "once its consumer left, its TTL ran")
    }

    func testOneGatewayTakesAtMostItsShareOfTheLiveStreams() throws {
        let server = try makeServer { $0.controlMaxStreams = 8 }
        defer { server.stop() }
        let a = try server.createGateway(GatewayOptions(ttlSeconds: 0))
        let b = try server.createGateway(GatewayOptions(ttlSeconds: 0))
        var streams: [Process] = []
        defer {
            for stream in streams {
                stream.terminate()
                stream.waitUntilExit()
            }
        }
        for _ in 0..<4 { streams.append(try openStream(server, "/v1/gateways/\(a.id)/v1/deliveries/stream")) }
        usleep(500_000)
        // With a time limit: without the share, this stream would open and never end.
        let (refused, body) = try Self.curl(
            try XCTUnwrap(server.controlURL), "GET", "/v1/gateways/\(a.id)/v1/deliveries/stream", maxTime: 2)
        XCTAssertEqual(refused, 503, body)
        XCTAssertTrue(body.contains("at most 4 of the server's 8"), body)
        // Another gateway and the server's own API still get theirs.
        let (other, _) = try Self.curl(
            try XCTUnwrap(server.controlURL), "GET", "/v1/gateways/\(b.id)/v1/events/stream", maxTime: 1)
        XCTAssertEqual(other, 200)
        let (own, _) = try Self.curl(try XCTUnwrap(server.controlURL), "GET", "/v1/deliveries/stream", maxTime: 1)
        XCTAssertEqual(own, 200)
    }

    func testGettingAGatewayTouchesItAKeepAlive() throws {
        let server = try makeServer()
        defer { server.stop() }
        let idle = try server.createGateway(GatewayOptions(ttlSeconds: 1))
        let kept = try server.createGateway(GatewayOptions(ttlSeconds: 1))
        let start = Date()
        while Date().timeIntervalSince(start) < 2.6 {
            XCTAssertEqual(try control(server, "GET", "/v1/gateways/\(kept.id)").0, 200)
            usleep(300_000)
        }
        XCTAssertEqual(server.gateways.map(\.id), [kept.id], "GET /v1/gateways/{id} kept it alive, not the other")
        XCTAssertEqual(try control(server, "GET", "/v1/gateways/\(idle.id)").0, 404)
    }

    func testDevicesAndFaultsOfTheBodyAreTheGatewaysOwnAndARefusalLeavesNoGateway() throws {
        let server = try makeServer()
        defer { server.stop() }
        let body =
            #"{"devices":[{"token":"\#(token)","environment":"sandbox","topic":"com.example.a"}],"#
            + #""faults":[{"match":{"topic":"com.example.b"},"action":{"type":"respond","status":500}}]}"#
        let (status, text) = try control(server, "POST", "/v1/gateways", body: body)
        XCTAssertEqual(status, 201, text)
        let port = try XCTUnwrap(try json(text)["port"] as? Int)
        XCTAssertEqual(try control(server, "GET", "/v1/gateways/g1/v1/devices/\(token)").0, 200)
        XCTAssertEqual(try control(server, "GET", "/v1/devices/\(token)").0, 404, "not the default's")
        XCTAssertEqual(try push(server, port: port, topic: "com.example.b"), [500])
        XCTAssertEqual(try push(server, port: server.listeners[0].port, topic: "com.example.b"), [200])

        let (refused, message) = try control(
            server, "POST", "/v1/gateways", body: #"{"devices":[{"token":"\#(token)","environment":"moon"}]}"#)
        XCTAssertEqual(refused, 400, message)
        XCTAssertTrue(message.contains("devices[0].environment: "), message)
        let (badFault, faultMessage) = try control(
            server, "POST", "/v1/gateways", body: #"{"faults":{"action":{"type":"explode"}}}"#)
        XCTAssertEqual(badFault, 400, faultMessage)
        XCTAssertTrue(faultMessage.contains("faults: "), faultMessage)
        XCTAssertEqual(server.gateways.map(\.id), ["g1"], "a refused gateway is not left behind")
    }

    /// A gateway's health `uptimeMs` and `/metrics` `mock_apns_uptime_seconds` count from its
    /// creation and move (they were frozen at creation).
    func testAGatewaysUptimeIsLive() throws {
        let server = try makeServer()
        defer { server.stop() }
        let base = "/v1/gateways/" + (try server.createGateway()).id
        func uptime() throws -> Int {
            let (_, text) = try control(server, "GET", base + "/v1/health")
            let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            return object?["uptimeMs"] as? Int ?? -1
        }
        let first = try uptime()
        Thread.sleep(forTimeInterval: 0.15)
        let second = try uptime()
        XCTAssertGreaterThanOrEqual(second - first, 100, "uptimeMs moves: \(first) then \(second)")
        let (_, metrics) = try control(server, "GET", base + "/metrics")
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("mock_apns_uptime_seconds ") }
        let seconds = line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? -1
        XCTAssertGreaterThanOrEqual(seconds, 0.15, String(line ?? "no mock_apns_uptime_seconds"))
    }

    func testTheCapAndTheRecordBoundAreEnforced() throws {
        let server = try makeServer {
            $0.maxGateways = 2
            $0.maxRecords = 500
        }
        defer { server.stop() }
        XCTAssertEqual(try server.createGateway().store.capacity, 10_000, "the per-gateway default")
        XCTAssertThrowsError(try server.createGateway(GatewayOptions(maxRecords: 10_001))) {
            XCTAssertEqual(($0 as? ControlError)?.status, 400)
        }
        _ = try server.createGateway(GatewayOptions(maxRecords: 7))
        let (status, body) = try control(server, "POST", "/v1/gateways")
        XCTAssertEqual(status, 429, body)
        XCTAssertTrue(body.contains("--max-gateways"), body)
        XCTAssertTrue(server.removeGateway(id: "g1"))
        XCTAssertEqual(try control(server, "POST", "/v1/gateways").0, 201)
    }

    /// A live gateway's name is unique: a second `POST /v1/gateways` with it is a 409 naming the
    /// holder, nothing made; once that gateway is deleted the name is free again.
    func testASecondLiveGatewayWithANameIsRefused() throws {
        let server = try makeServer()
        defer { server.stop() }
        XCTAssertEqual(try control(server, "POST", "/v1/gateways", body: #"{"name":"suite-a"}"#).0, 201)
        let (status, body) = try control(server, "POST", "/v1/gateways", body: #"{"name":"suite-a"}"#)
        XCTAssertEqual(status, 409, body)
        XCTAssertEqual(
            try json(body)["error"] as? String,
            #"name: a live gateway is named "suite-a" already (g1); delete it, or choose another name"#)
        XCTAssertThrowsError(try server.createGateway(GatewayOptions(name: "suite-a"))) {
            XCTAssertEqual(($0 as? ControlError)?.status, 409)
        }
        let unnamed = try server.createGateway()
        XCTAssertEqual(unnamed.name, unnamed.id)
        // A name like a gateway's id (g<digits>) is refused before any lookup: 400 (it was 409 when an
        // unnamed gateway held it; a name given before that id existed went through and collided).
        XCTAssertEqual(try control(server, "POST", "/v1/gateways", body: #"{"name":"\#(unnamed.id)"}"#).0, 400)
        XCTAssertEqual(server.gateways.map(\.id), ["g1", unnamed.id], "a refused gateway is not left behind")
        XCTAssertTrue(server.removeGateway(id: "g1"))
        XCTAssertEqual(try control(server, "POST", "/v1/gateways", body: #"{"name":"suite-a"}"#).0, 201)
    }

    /// `GET /v1/health` names the certificate each TLS listener serves (the ready file's
    /// `certificate`), a gateway's too (the server's first listener's), so that a client attached
    /// to a running server can trust it without a CA file.
    func testHealthNamesTheServedCertificate() throws {
        let server = try makeServer()
        defer { server.stop() }
        let pem = try XCTUnwrap(server.certificatePEM(listener: 0))
        XCTAssertTrue(pem.hasPrefix("-----BEGIN CERTIFICATE-----"), pem)
        func certificates(_ path: String) throws -> [String?] {
            let (status, body) = try control(server, "GET", path)
            XCTAssertEqual(status, 200, body)
            let listeners = try XCTUnwrap(try json(body)["listeners"] as? [[String: Any]])
            return listeners.map { $0["certificate"] as? String }
        }
        XCTAssertEqual(try certificates("/v1/health"), [pem])
        let gateway = try server.createGateway()
        XCTAssertEqual(try certificates("/v1/gateways/\(gateway.id)/v1/health"), [pem])

        let plain = try makeServer { $0.listeners[0].plaintext = true }
        defer { plain.stop() }
        let (_, body) = try Self.curl(try XCTUnwrap(plain.controlURL), "GET", "/v1/health")
        let listener = try XCTUnwrap((try json(body)["listeners"] as? [[String: Any]])?.first)
        XCTAssertTrue(listener["certificate"] is NSNull, "a plaintext listener serves none: \(listener)")
    }

    /// A `maxRecords` out of range is refused stating the server's range, whichever side it misses.
    func testAMaxRecordsOutOfRangeStatesTheRange() throws {
        let server = try makeServer { $0.maxRecords = 500 }
        defer { server.stop() }
        for value in ["0", "-3", "10001", "1099511627776"] {
            let (status, body) = try control(server, "POST", "/v1/gateways", body: #"{"maxRecords":\#(value)}"#)
            XCTAssertEqual(status, 400, body)
            XCTAssertEqual(
                try json(body)["error"] as? String,
                "maxRecords: expected an integer from 1 to 10000 (the server's maxRecords), got \(value)")
        }
        XCTAssertTrue(server.gateways.isEmpty)
    }
}
