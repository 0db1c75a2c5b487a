import APNsCore
import Foundation
import MockAPNs
import TestSupport
import XCTest

/// The `ConnectionActionPerformer` through one of its origins (a control-API command): the
/// frame goes out with the one builder's debug data, and each action is recorded once, with
/// its origin, just before it is done.
final class ConnectionActionPerformerTests: XCTestCase {
    /// A started server (cleartext, one worker) with one raw HTTP/2 client connected (preface
    /// and empty SETTINGS sent, then it only reads), once its `opened` event is in.
    private func serverWithClient() throws -> (server: MockAPNsServer, fd: Int32, id: UInt64, control: String) {
        var configuration = Configuration()
        configuration.listeners[0].port = 0
        configuration.listeners[0].plaintext = true
        configuration.control = ControlConfiguration(host: "127.0.0.1", port: 0)
        configuration.workers = 1
        configuration.drainTimeoutSeconds = 1
        let server = MockAPNsServer(configuration: configuration)
        try server.start()
        let fd = LoopbackSocket.connect(port: server.listeners[0].port)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
        XCTAssertEqual(send(fd, preface, preface.count, 0), preface.count)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let deadline = Date().addingTimeInterval(5)
        while server.connectionEvents().isEmpty && Date() < deadline { usleep(2000) }
        let id = try XCTUnwrap(server.connectionEvents().first?.connectionID)
        return (server, fd, id, "\(try XCTUnwrap(server.controlURL))")
    }

    /// Reads frames until a GOAWAY (3-byte length, type, flags, 4-byte stream id, payload):
    /// its last-stream-id, error code and debug data; nil when the connection ends first.
    private static func readGoaway(_ fd: Int32) -> (last: UInt32, code: UInt32, debug: String)? {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            received += chunk[0..<count]
            var offset = 0
            while offset + 9 <= received.count {
                let length = Int(received[offset]) << 16 | Int(received[offset + 1]) << 8 | Int(received[offset + 2])
                guard offset + 9 + length <= received.count else { break }
                let payload = Array(received[(offset + 9)..<(offset + 9 + length)])
                if received[offset + 3] == 0x7 && payload.count >= 8 {
                    return (
                        payload[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF,
                        payload[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) },
                        String(decoding: payload[8...], as: UTF8.self)
                    )
                }
                offset += 9 + length
            }
        }
    }

    func testCommandGoawayThenCloseArePerformedAndRecorded() throws {
        let (server, fd, id, control) = try serverWithClient()
        defer { server.stop() }
        defer { close(fd) }

        let goaway = try ProcessRunner.run(
            "/usr/bin/curl",
            [
                "-sS", "-X", "POST", "--json", #"{"errorCode":"ENHANCE_YOUR_CALM","reason":"a/b","closeAfterMs":null}"#,
                "\(control)/v1/connections/\(id)/goaway",
            ])
        XCTAssertTrue(goaway.stdout.contains(#""action":"goaway""#), goaway.stdout + goaway.stderr)
        let frame = Self.readGoaway(fd)
        var chunk = [UInt8](repeating: 0, count: 4096)
        XCTAssertEqual(frame?.last, 0)
        XCTAssertEqual(frame?.code, 11)
        XCTAssertEqual(frame?.debug, #"{"reason":"a/b"}"#, "one builder: `/` is not escaped")

        let closed = try ProcessRunner.run(
            "/usr/bin/curl", ["-sS", "-X", "POST", "\(control)/v1/connections/\(id)/close"])
        XCTAssertTrue(closed.stdout.contains(#""action":"close""#), closed.stdout + closed.stderr)
        while recv(fd, &chunk, chunk.count, 0) > 0 {}
        let closeDeadline = Date().addingTimeInterval(5)
        while server.connectionEvents().count < 4 && Date() < closeDeadline { usleep(2000) }
        let events = server.connectionEvents()
        XCTAssertEqual(events.map(\.kind), [.opened, .goaway, .close, .closed], "\(events)")
        XCTAssertEqual(events.map(\.origin), [.lifecycle, .command, .command, .lifecycle])
        XCTAssertEqual(
            events.dropFirst().first?.action,
            .goaway(
                errorCode: 11, lastStreamID: 0, debugData: Array(#"{"reason":"a/b"}"#.utf8),
                closeAfterMilliseconds: nil))
        XCTAssertEqual(events.dropFirst(2).first?.action, .close(when: nil))
    }

    /// A rolling restart's drain (`ConnectionAction.drain`): GOAWAY NO_ERROR Shutdown, then, with
    /// no stream in flight, FIN at once; recorded as a drain, then a close, with origin `scenario`.
    func testRollingRestartDrainIsPerformedAndRecorded() throws {
        let (server, fd, id, control) = try serverWithClient()
        defer { server.stop() }
        defer { close(fd) }
        let started = Date()
        let restart = try ProcessRunner.run(
            "/usr/bin/curl",
            [
                "-sS", "-X", "POST", "--json",
                #"{"scenario":"rolling-restart","parameters":{"windowMs":0,"drainMs":3000,"seed":1}}"#,
                "\(control)/v1/faults",
            ])
        XCTAssertTrue(
            restart.stdout.contains(#""connections":[{"goawayAfterMs":0,"id":\#(id)}]"#),
            restart.stdout + restart.stderr)
        let frame = Self.readGoaway(fd)
        XCTAssertEqual(frame?.last, 0)
        XCTAssertEqual(frame?.code, 0)
        XCTAssertEqual(frame?.debug, #"{"reason":"Shutdown"}"#)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while recv(fd, &chunk, chunk.count, 0) > 0 {}
        XCTAssertLessThan(Date().timeIntervalSince(started), 2.5, "closed once idle, not after drainMs")
        let deadline = Date().addingTimeInterval(5)
        while server.connectionEvents().count < 4 && Date() < deadline { usleep(2000) }
        let events = server.connectionEvents()
        // The drain's own FIN is a `close` event too, as every close is (issue 13 review).
        XCTAssertEqual(events.map(\.kind), [.opened, .goaway, .close, .closed], "\(events)")
        XCTAssertEqual(
            events.map(\.origin),
            [.lifecycle, .scenario("rolling-restart"), .scenario("rolling-restart"), .lifecycle])
        XCTAssertEqual(events.dropFirst(2).first?.action, .close(when: nil))
        XCTAssertEqual(
            events.dropFirst().first?.action,
            .drain(
                errorCode: 0, lastStreamID: 0, debugData: Array(#"{"reason":"Shutdown"}"#.utf8), maxMilliseconds: 3000))
    }
}
