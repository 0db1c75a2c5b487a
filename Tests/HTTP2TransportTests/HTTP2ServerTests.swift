import Foundation
import HTTP2Transport
import Synchronization
import TestSupport
import XCTest

/// Answers every request with its method, path and body echoed, for transport-level tests.
final class EchoHandler: HTTP2RequestHandler {
    let opened = Atomic<Int>(0)
    let closed = Atomic<Int>(0)
    /// The streams reported unanswered: (tag, stream id, how it ended).
    let unanswered = Mutex<[(UInt64, Int32, HTTP2StreamEnd)]>([])
    func handle(_ request: inout HTTP2Request, on connection: HTTP2Connection) -> HTTP2Action {
        request.tag = 7
        if request.path == "/reset" { return .resetStream(errorCode: 2) }
        let names = request.headers.map(\.name).joined(separator: ",")
        let text = "\(request.method) \(request.path) \(request.body.count) [\(names)]"
        return .respond(
            HTTP2Response(status: 200, headers: [HeaderField(name: "x-test", value: "yes")], body: Array(text.utf8)))
    }
    func connectionOpened(_ connection: HTTP2Connection) { opened.add(1, ordering: .relaxed) }
    func connectionClosed(_ connection: HTTP2Connection) { closed.add(1, ordering: .relaxed) }
    func streamEndedUnanswered(tag: UInt64, streamID: Int32, end: HTTP2StreamEnd, on connection: HTTP2Connection) {
        unanswered.withLock { $0.append((tag, streamID, end)) }
    }
}

/// Runs a command line tool and returns (exit status, stdout, stderr).
func runTool(_ tool: String, _ arguments: [String]) throws -> (Int32, String, String) {
    let result = try ProcessRunner.run(tool, arguments)
    return (result.status, result.stdout, result.stderr)
}

final class HTTP2ServerTests: XCTestCase {
    func startServer(tls: TLSContext?, settings: HTTP2Settings = HTTP2Settings()) throws -> (
        HTTP2Server, EventLoop, EchoHandler
    ) {
        let handler = EchoHandler()
        let acceptLoop = EventLoop()
        let server = HTTP2Server(
            listeners: [HTTP2ListenerSpec(host: "127.0.0.1", port: 0, tls: tls, settings: settings)],
            workerCount: 2, acceptLoop: acceptLoop, handler: handler)
        try server.start()
        acceptLoop.start()
        return (server, acceptLoop, handler)
    }

    func testAutomaticWorkerCountLeavesOneCoreForTheSender() {
        let table: [(cores: Int, workers: Int)] = [(-1, 1), (0, 1), (1, 1), (2, 1), (3, 2), (4, 3), (64, 63)]
        for row in table {
            XCTAssertEqual(HTTP2Server.automaticWorkerCount(cores: row.cores), row.workers, "cores \(row.cores)")
        }
    }

    func testUsableCoresCountsTheAllowedMask() {
        let table: [(status: String, count: Int?)] = [
            ("Name:\tmock-apns\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n", 2),
            ("Cpus_allowed:\t1\n", 1),
            ("Cpus_allowed:\tff,ffffffff\n", 40),
            ("Cpus_allowed:\t00000000,00000004\n", 1),
            ("Cpus_allowed_list:\t0-3\n", nil),
            ("Cpus_allowed:\tzz\n", nil),
            ("Cpus_allowed:\t\n", nil),
            ("", nil),
        ]
        for row in table {
            XCTAssertEqual(UsableCores.allowedCount(inStatus: row.status), row.count, row.status)
        }
        XCTAssertGreaterThanOrEqual(UsableCores.count(), 1)
    }

    func testCurlOverTLSWithALPN() throws {
        let (server, acceptLoop, handler) = try startServer(tls: try TLSContext.ephemeral())
        defer {
            server.shutdown(debugData: [], drainTimeout: 1)
            acceptLoop.stop()
        }
        let port = server.boundAddresses[0].port
        let (status, out, err) = try runTool(
            "/usr/bin/curl",
            [
                "-sS", "-k", "--http2", "-D", "-", "-d", "hello",
                "https://127.0.0.1:\(port)/3/device/abc",
            ])
        XCTAssertEqual(status, 0, err)
        XCTAssertTrue(out.hasPrefix("HTTP/2 200"), out)
        XCTAssertTrue(out.contains("x-test: yes"), out)
        XCTAssertTrue(out.hasSuffix("POST /3/device/abc 5 [user-agent,accept,content-length,content-type]"), out)
        XCTAssertEqual(handler.opened.load(ordering: .relaxed), 1)
    }

    func testPriorKnowledgeOverTLSWithoutALPN() throws {
        let (server, acceptLoop, _) = try startServer(tls: try TLSContext.ephemeral())
        defer {
            server.shutdown(debugData: [], drainTimeout: 1)
            acceptLoop.stop()
        }
        let port = server.boundAddresses[0].port
        let (status, out, err) = try runTool(
            "/usr/bin/curl",
            [
                "-sS", "-k", "--http2-prior-knowledge", "--no-alpn",
                "https://127.0.0.1:\(port)/x",
            ])
        XCTAssertEqual(status, 0, err)
        XCTAssertEqual(out, "GET /x 0 [user-agent,accept]")
    }

    func testCleartextPriorKnowledgeAndReset() throws {
        let (server, acceptLoop, _) = try startServer(tls: nil)
        defer {
            server.shutdown(debugData: [], drainTimeout: 1)
            acceptLoop.stop()
        }
        let port = server.boundAddresses[0].port
        let (status, out, _) = try runTool(
            "/usr/bin/curl", ["-sS", "--http2-prior-knowledge", "http://127.0.0.1:\(port)/y"])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(out, "GET /y 0 [user-agent,accept]")
        let (resetStatus, _, resetErr) = try runTool(
            "/usr/bin/curl", ["-sS", "--http2-prior-knowledge", "http://127.0.0.1:\(port)/reset"])
        XCTAssertNotEqual(resetStatus, 0)
        XCTAssertTrue(
            resetErr.contains("INTERNAL_ERROR") || resetErr.contains("error code: 2") || resetErr.contains("(92)"),
            resetErr)
    }

    /// A tagged stream that ends without response HEADERS is reported with its tag and how it
    /// ended (issue 13); an answered one is not.
    func testAStreamResetInsteadOfAnsweredIsReportedUnanswered() throws {
        let (server, acceptLoop, handler) = try startServer(tls: nil)
        defer {
            server.shutdown(debugData: [], drainTimeout: 1)
            acceptLoop.stop()
        }
        let port = server.boundAddresses[0].port
        _ = try runTool("/usr/bin/curl", ["-sS", "--http2-prior-knowledge", "http://127.0.0.1:\(port)/y"])
        _ = try runTool("/usr/bin/curl", ["-sS", "--http2-prior-knowledge", "http://127.0.0.1:\(port)/reset"])
        let deadline = Date().addingTimeInterval(2)
        while handler.unanswered.withLock({ $0.isEmpty }) && Date() < deadline { usleep(1000) }
        let reported = handler.unanswered.withLock { $0 }
        XCTAssertEqual(reported.count, 1)
        XCTAssertEqual(reported.first?.0, 7)
        XCTAssertEqual(reported.first?.1, 1)
        XCTAssertEqual(reported.first?.2, .resetByServer)
    }

    func testGracefulShutdownSendsGoawayWithDebugData() throws {
        let (server, acceptLoop, handler) = try startServer(tls: nil)
        defer { acceptLoop.stop() }
        let port = server.boundAddresses[0].port
        // nghttp waits 2 s after its request, so the GOAWAY arrives on an open connection.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nghttp")
        process.arguments = [
            "-nv", "--expect-continue", "-d", "/dev/null", "--timeout=3", "http://127.0.0.1:\(port)/z",
            "http://127.0.0.1:\(port)/z2",
        ]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        while handler.opened.load(ordering: .relaxed) == 0 { usleep(1000) }
        usleep(200_000)
        server.shutdown(debugData: Array(#"{"reason":"Shutdown"}"#.utf8), drainTimeout: 1)
        process.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(text.contains("GOAWAY"), text)
        XCTAssertEqual(server.openConnections, 0)
    }

    func testSilentTLSClientIsClosedAfterTheHandshakeTimeout() throws {
        var settings = HTTP2Settings()
        settings.handshakeTimeout = 0.3
        let (server, acceptLoop, _) = try startServer(tls: try TLSContext.ephemeral(), settings: settings)
        defer {
            server.shutdown(debugData: [], drainTimeout: 1)
            acceptLoop.stop()
        }
        let fd = LoopbackSocket.connect(port: server.boundAddresses[0].port)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let started = Date()
        var byte: UInt8 = 0
        let received = recv(fd, &byte, 1, 0)  // no ClientHello: the server should give up and close
        let waited = Date().timeIntervalSince(started)
        XCTAssertEqual(received, 0, "expected EOF from the server")
        XCTAssertGreaterThan(waited, 0.2)
        XCTAssertLessThan(waited, 2.5)
        // The worker counts the connection closed just after it closes the socket: allow it a moment.
        let deadline = Date().addingTimeInterval(1)
        while server.openConnections != 0 && Date() < deadline { usleep(1000) }
        XCTAssertEqual(server.openConnections, 0)
    }
}
