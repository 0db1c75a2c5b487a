import HTTP2Client
import HTTPFields
import XCTest

/// The client against hand-built frames: GOAWAY, RST_STREAM, APNs headers, silence, SETTINGS limits.
final class ScriptedServerTests: XCTestCase {
    private var servers: [ScriptedHTTP2Server] = []

    override func tearDown() {
        servers.forEach { $0.stop() }
        servers = []
        super.tearDown()
    }

    private func server(
        greeting: [UInt8] = HTTP2Frames.settings(),
        reply: @escaping @Sendable (UInt32, Int) -> ScriptedHTTP2Server.Reply
    ) throws -> ScriptedHTTP2Server {
        let server = try ScriptedHTTP2Server(greeting: greeting, reply: reply)
        servers.append(server)
        return server
    }

    private func request(_ token: String = "abc") -> HTTP2ClientRequest {
        HTTP2ClientRequest(
            path: "/3/device/\(token)", headers: [HeaderField(name: "apns-topic", value: "com.example")],
            body: Array(#"{"aps":{}}"#.utf8))
    }

    func testAPNsResponseHeadersAndErrorBody() throws {
        let server = try server { stream, _ in
            .init(
                bytes: HTTP2Frames.response(
                    stream, status: 400, apnsID: "8FE746A6-5B20-4E85-9E35-7B9B3E6C4F0E",
                    body: #"{"reason":"BadDeviceToken"}"#))
        }
        let connection = try HTTP2ClientConnection.connect(url: "http://127.0.0.1:\(server.port)")
        defer { connection.close() }
        let response = try XCTUnwrap(connection.send([request()])[0].response)
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.header("apns-id"), "8FE746A6-5B20-4E85-9E35-7B9B3E6C4F0E")
        XCTAssertEqual(APNsErrorBody(body: response.body), APNsErrorBody(reason: "BadDeviceToken"))
    }

    func testRSTStreamIsReportedWithItsCode() throws {
        let server = try server { stream, number in
            .init(
                bytes: number == 1 ? HTTP2Frames.rstStream(stream, code: 7) : HTTP2Frames.response(stream, status: 200))
        }
        let connection = try HTTP2ClientConnection.connect(url: "http://127.0.0.1:\(server.port)")
        defer { connection.close() }
        let results = connection.send([request(), request()])
        XCTAssertEqual(results[0].outcome, .streamReset(.refusedStream))
        XCTAssertEqual(results[0].streamID, 1)
        XCTAssertEqual(results[1].response?.status, 200)
        XCTAssertEqual(HTTP2ErrorCode.refusedStream.hexDescription, "REFUSED_STREAM (0x7)")
    }

    func testGoAwayAfterTheFirstRequestRefusesTheRest() throws {
        // Answers stream 1, then goes away saying only stream 1 was processed.
        let server = try server { stream, number in
            guard number == 1 else { return .init(bytes: []) }
            return .init(
                bytes: HTTP2Frames.response(stream, status: 200)
                    + HTTP2Frames.goAway(lastStream: 1, code: 11, debug: "calm down"), close: true)
        }
        let connection = try HTTP2ClientConnection.connect(url: "http://127.0.0.1:\(server.port)")
        defer { connection.close() }
        let results = connection.send((0..<5).map { _ in request() }, concurrency: 1)
        let goAway = HTTP2GoAway(errorCode: .enhanceYourCalm, lastStreamID: 1, debugData: Array("calm down".utf8))
        XCTAssertEqual(connection.goAway, goAway)
        XCTAssertEqual(results[0].response?.status, 200)
        for result in results.dropFirst() {
            XCTAssertEqual(result.outcome, .failed(.goAway(goAway)))
        }
        XCTAssertEqual("\(goAway)", #"GOAWAY ENHANCE_YOUR_CALM (0xb), last stream 1, debug data "calm down""#)
    }

    func testGoAwayDuringOpenStreamsFailsTheUnprocessedOnes() throws {
        // With three streams open, the first request triggers GOAWAY(last 1) and a close.
        let server = try server { stream, number in
            guard number == 3 else { return .init(bytes: []) }
            return .init(
                bytes: HTTP2Frames.response(1, status: 200) + HTTP2Frames.goAway(lastStream: 1, code: 0), close: true)
        }
        let connection = try HTTP2ClientConnection.connect(url: "http://127.0.0.1:\(server.port)")
        defer { connection.close() }
        let results = connection.send([request(), request(), request()], concurrency: 3)
        XCTAssertEqual(results[0].response?.status, 200)
        let goAway = HTTP2GoAway(errorCode: .noError, lastStreamID: 1)
        XCTAssertEqual(results[1].outcome, .failed(.goAway(goAway)))
        XCTAssertEqual(results[2].outcome, .failed(.goAway(goAway)))
        XCTAssertEqual(connection.goAway, goAway)
    }

    func testGoAwayWithAThousandStreamsQueuedEndsPromptly() throws {
        let server = try server { stream, number in
            guard number == 1 else { return .init(bytes: []) }
            return .init(
                bytes: HTTP2Frames.response(stream, status: 200) + HTTP2Frames.goAway(lastStream: stream, code: 0),
                close: true)
        }
        let connection = try HTTP2ClientConnection.connect(url: "http://127.0.0.1:\(server.port)")
        defer { connection.close() }
        let results = connection.send((0..<1000).map { _ in request() }, concurrency: 1000, timeout: 10)
        XCTAssertEqual(results.filter { $0.response?.status == 200 }.count, 1)
        let goAway = try XCTUnwrap(connection.goAway)
        XCTAssertEqual(results.filter { $0.outcome == .failed(.goAway(goAway)) }.count, 999)
    }

    func testGoAwayRightAfterSettingsIsAConnectError() throws {
        let server = try server(
            greeting: HTTP2Frames.settings() + HTTP2Frames.goAway(lastStream: 0, code: 2, debug: "bye")
        ) { _, _ in
            .init(bytes: [])
        }
        XCTAssertThrowsError(try HTTP2ClientConnection.connect(url: "http://127.0.0.1:\(server.port)")) { error in
            XCTAssertEqual(
                error as? HTTP2ClientError,
                .goAway(
                    HTTP2GoAway(errorCode: HTTP2ErrorCode(rawValue: 2), lastStreamID: 0, debugData: Array("bye".utf8))))
        }
    }

    func testASilentServerTimesOut() throws {
        let server = try server { _, _ in .init(bytes: []) }
        let connection = try HTTP2ClientConnection.connect(url: "http://127.0.0.1:\(server.port)")
        defer { connection.close() }
        let started = Date()
        let results = connection.send([request(), request()], concurrency: 1, timeout: 0.3)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        let timedOut = HTTP2ClientError.timedOut(what: "waiting for responses", seconds: 0.3)
        XCTAssertEqual(results[0].outcome, .failed(timedOut))
        XCTAssertNotNil(results[0].streamID)
        XCTAssertEqual(results[1].outcome, .failed(timedOut))
        XCTAssertNil(results[1].streamID, "never sent")
        XCTAssertEqual("\(timedOut)", "timed out after 0.3 s waiting for responses")
    }

    func testNoSettingsMeansNotHTTP2() throws {
        let server = try server(greeting: Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)) { _, _ in .init(bytes: []) }
        XCTAssertThrowsError(try HTTP2ClientConnection.connect(url: "http://127.0.0.1:\(server.port)")) { error in
            guard case .notHTTP2? = error as? HTTP2ClientError else { return XCTFail("\(error)") }
        }
    }

    func testTheServersStreamLimitCapsConcurrency() throws {
        let server = try server(greeting: HTTP2Frames.settings(maxConcurrentStreams: 2)) { stream, _ in
            .init(bytes: HTTP2Frames.response(stream, status: 200))
        }
        let connection = try HTTP2ClientConnection.connect(url: "http://127.0.0.1:\(server.port)")
        defer { connection.close() }
        let results = connection.send((0..<8).map { _ in request() }, concurrency: 5)
        XCTAssertTrue(results.allSatisfy { $0.response?.status == 200 })
        XCTAssertEqual(connection.peakOpenStreams, 2)
    }
}
