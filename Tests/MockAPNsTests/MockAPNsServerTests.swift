import APNsCore
import Foundation
import HTTP2Client
import HTTPFields
import MockAPNs
import TestSupport
import XCTest

final class MockAPNsServerTests: XCTestCase {
    let token = String(repeating: "ab", count: 32)

    /// A server on free ports with an ephemeral certificate, as a Swift test suite embeds it.
    func makeServer(_ adjust: (inout Configuration) -> Void = { _ in }) throws -> MockAPNsServer {
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

    func trustFile(_ server: MockAPNsServer) throws -> String {
        let path = NSTemporaryDirectory() + "mockapns-\(UUID().uuidString).pem"
        try XCTUnwrap(server.certificatePEM(listener: 0)).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// One push over TLS with the repository's own HTTP/2 client, verifying the server's
    /// certificate against the one the embedded server made; the response it got.
    private func push(
        _ server: MockAPNsServer, host: String, headers: [HeaderField], body: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> HTTP2ClientResponse {
        let tls = HTTP2ClientTLSOptions(caCertificatePath: try trustFile(server))
        let connection = try HTTP2ClientConnection.connect(
            url: "https://\(host):\(server.listeners[0].port)", tls: tls, timeout: 5)
        defer { connection.close() }
        let request = HTTP2ClientRequest(path: "/3/device/\(token)", headers: headers, body: Array(body.utf8))
        let result = try XCTUnwrap(connection.send([request], timeout: 5).first, file: file, line: line)
        return try XCTUnwrap(result.response, "no response: \(result.outcome)", file: file, line: line)
    }

    /// README "Security": a control API bound beyond loopback needs a token, or the flag that
    /// says it may run open; start refuses otherwise and binds nothing.
    func testControlAPIBeyondLoopbackNeedsATokenOrTheInsecureFlag() throws {
        var configuration = Configuration()
        configuration.listeners[0].port = 0
        configuration.control = ControlConfiguration(host: "0.0.0.0", port: 0)
        XCTAssertThrowsError(try MockAPNsServer(configuration: configuration).start()) {
            XCTAssertTrue("\($0)".contains("without a token"), "\($0)")
        }
        for allow in [
            { (control: inout ControlConfiguration) in control.token = ControlToken("s3cret") },
            { (control: inout ControlConfiguration) in control.insecureNoToken = true },
        ] {
            let server = try makeServer {
                $0.control?.host = "0.0.0.0"
                if var control = $0.control {
                    allow(&control)
                    $0.control = control
                }
            }
            XCTAssertNotNil(server.controlPort)
            server.stop()
        }
        let loopback = try makeServer { $0.control?.host = "localhost" }
        loopback.stop()
    }

    func testEmbeddedServerRecordsWhatTheClientSent() throws {
        let server = try makeServer()
        defer { server.stop() }
        let response = try push(
            server, host: "localhost",
            headers: [
                HeaderField(name: "apns-topic", value: "com.example.app"),
                HeaderField(name: "apns-push-type", value: "alert"),
                HeaderField(name: "apns-collapse-id", value: "c1"),
            ],
            body: #"{"aps":{"alert":"hi"}}"#)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, [])
        let records = server.deliveries(matching: DeliveryFilter(token: token))
        XCTAssertEqual(records.count, 1)
        let record = try XCTUnwrap(records.first)
        XCTAssertEqual(record.status, 200)
        XCTAssertEqual(record.verdict.topic, "com.example.app")
        XCTAssertEqual(record.verdict.collapseID, "c1")
        XCTAssertEqual(record.environment, .sandbox)
        XCTAssertEqual(response.header("apns-id"), record.apnsID)
        XCTAssertNotNil(record.uniqueID)
        XCTAssertEqual(response.header("apns-unique-id"), record.uniqueID)
    }

    func testProductionListenerOmitsUniqueIDAndEchoesApnsID() throws {
        let server = try makeServer { $0.listeners[0].environment = .production }
        defer { server.stop() }
        let apnsID = "123e4567-e89b-12d3-a456-426614174000"
        let response = try push(
            server, host: "127.0.0.1",
            headers: [
                HeaderField(name: "apns-topic", value: "com.example.app"), HeaderField(name: "apns-id", value: apnsID),
            ],
            body: #"{"aps":{"badge":1}}"#)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("apns-id"), apnsID)
        XCTAssertNil(response.header("apns-unique-id"))
    }

    func testAppleObservedProfileStartsTokenConnectionsAtOneStreamAndDropsAfterRejections() throws {
        let server = try makeServer {
            $0.streamProfile = .appleObserved
            $0.listeners[0].plaintext = true
        }
        defer { server.stop() }
        let base = "http://127.0.0.1:\(server.listeners[0].port)/3/device/"
        let body = NSTemporaryDirectory() + "mockapns-body-\(UUID().uuidString).json"
        try #"{"aps":{"alert":"hi"}}"#.write(toFile: body, atomically: true, encoding: .utf8)
        // One connection, streams in order: rejected, accepted, rejected, accepted; -M 1 makes
        // nghttp wait for the first SETTINGS instead of assuming 100 streams (nghttp skips repeated URIs).
        let result = try ProcessRunner.run(
            "/usr/bin/nghttp",
            [
                "-nv", "-M", "1", "-H", "apns-topic: com.example.app", "-d", body, base + "zz", base + token,
                base + "zy", base + String(repeating: "cd", count: 32),
            ])
        // The values of MAX_CONCURRENT_STREAMS in the SETTINGS frames the client received.
        var values: [String] = []
        var inReceivedSettings = false
        for line in result.stdout.split(separator: "\n") {
            if line.hasPrefix("[") { inReceivedSettings = line.contains("recv SETTINGS") }
            if inReceivedSettings, line.contains("SETTINGS_MAX_CONCURRENT_STREAMS"),
                let value = line.split(separator: ":").last
            {
                values.append(value.trimmingCharacters(in: CharacterSet(charactersIn: "] ")))
            }
        }
        // A token connection starts at 1 stream and rises to 1000 with the first accepted push;
        // a rejection lowers it to 1 again and the next success restores it.
        XCTAssertEqual(values, ["1", "1000", "1", "1000"], result.stdout)
    }

    /// A raw cleartext HTTP/2 client on the first listener: preface and empty SETTINGS sent.
    private func rawHTTP2Client(_ server: MockAPNsServer, file: StaticString = #filePath, line: UInt = #line) throws
        -> Int32
    {
        let connected = LoopbackSocket.connect(port: server.listeners[0].port)
        let fd = try XCTUnwrap(
            connected >= 0 ? connected : nil, "cannot connect to the listener", file: file, line: line)
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
        XCTAssertEqual(send(fd, preface, preface.count, 0), preface.count, file: file, line: line)
        return fd
    }

    func testStopSendsGoawayShutdownToOpenConnections() throws {
        let server = try makeServer { $0.listeners[0].plaintext = true }
        // A raw cleartext HTTP/2 client: preface and empty SETTINGS, then it only reads.
        let fd = try rawHTTP2Client(server)
        defer { close(fd) }
        let deadline = Date().addingTimeInterval(5)
        while server.openConnections == 0 && Date() < deadline { usleep(2000) }
        usleep(50_000)
        server.stop()
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received += chunk[0..<count]
        }
        // Walk the frames: 3-byte length, type, flags, 4-byte stream id, payload.
        var goaway: (errorCode: UInt32, debug: String)?
        var offset = 0
        while offset + 9 <= received.count {
            let length = Int(received[offset]) << 16 | Int(received[offset + 1]) << 8 | Int(received[offset + 2])
            let type = received[offset + 3]
            let payload = Array(received[(offset + 9)..<min(received.count, offset + 9 + length)])
            if type == 0x7 && payload.count >= 8 {
                let code = payload[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                goaway = (code, String(decoding: payload[8...], as: UTF8.self))
            }
            offset += 9 + length
        }
        XCTAssertEqual(goaway?.errorCode, 0, "GOAWAY NO_ERROR expected; got \(received.count) bytes")
        XCTAssertEqual(goaway?.debug, #"{"reason":"Shutdown"}"#)
        XCTAssertEqual(server.openConnections, 0)
    }

    /// The embedding API sees the connection events: opened, the shutdown GOAWAY, closed.
    func testConnectionEventsOfAnEmbeddedServer() throws {
        let server = try makeServer { $0.listeners[0].plaintext = true }
        let fd = try rawHTTP2Client(server)
        defer { close(fd) }
        let deadline = Date().addingTimeInterval(5)
        while server.connectionEvents().isEmpty && Date() < deadline { usleep(2000) }
        server.stop()
        let events = server.connectionEvents()
        XCTAssertEqual(events.map(\.kind), [.opened, .goaway, .closed], "\(events)")
        XCTAssertEqual(events.map(\.origin), [.lifecycle, .shutdown, .lifecycle])
        XCTAssertEqual(Set(events.map(\.connectionID)).count, 1)
        XCTAssertEqual(events.first?.action, .opened(alpn: nil, tls: false, maxConcurrentStreams: 1000))
        XCTAssertEqual(events.dropFirst().first?.action.goawayReason, "Shutdown")
        XCTAssertEqual(server.connectionEvents(matching: ConnectionEventFilter(kinds: [.goaway])).count, 1)
    }
}
