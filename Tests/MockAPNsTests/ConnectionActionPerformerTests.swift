import APNsCore
import Foundation
import MockAPNs
import TestSupport
import XCTest

/// The `ConnectionActionPerformer` through one of its origins (a control-API command): the
/// frame goes out with the one builder's debug data, and each action is recorded once, with
/// its origin, just before it is done.
final class ConnectionActionPerformerTests: XCTestCase {
    func testCommandGoawayThenCloseArePerformedAndRecorded() throws {
        var configuration = Configuration()
        configuration.listeners[0].port = 0
        configuration.listeners[0].plaintext = true
        configuration.control = ControlConfiguration(host: "127.0.0.1", port: 0)
        configuration.workers = 1
        configuration.drainTimeoutSeconds = 1
        let server = MockAPNsServer(configuration: configuration)
        try server.start()
        defer { server.stop() }
        // A raw cleartext HTTP/2 client: preface and empty SETTINGS, then it only reads.
        let fd = LoopbackSocket.connect(port: server.listeners[0].port)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
        XCTAssertEqual(send(fd, preface, preface.count, 0), preface.count)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let deadline = Date().addingTimeInterval(5)
        while server.connectionEvents().isEmpty && Date() < deadline { usleep(2000) }
        let id = try XCTUnwrap(server.connectionEvents().first?.connectionID)
        let control = try XCTUnwrap(server.controlURL)

        let goaway = try ProcessRunner.run(
            "/usr/bin/curl",
            [
                "-sS", "-X", "POST", "-d", #"{"errorCode":"ENHANCE_YOUR_CALM","reason":"a/b","closeAfterMs":null}"#,
                "\(control)/v1/connections/\(id)/goaway",
            ])
        XCTAssertTrue(goaway.stdout.contains(#""action":"goaway""#), goaway.stdout + goaway.stderr)
        // Read frames until the GOAWAY: 3-byte length, type, flags, 4-byte stream id, payload.
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var frame: (last: UInt32, code: UInt32, debug: String)?
        while frame == nil {
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { break }
            received += chunk[0..<count]
            var offset = 0
            while offset + 9 <= received.count {
                let length = Int(received[offset]) << 16 | Int(received[offset + 1]) << 8 | Int(received[offset + 2])
                guard offset + 9 + length <= received.count else { break }
                let payload = Array(received[(offset + 9)..<(offset + 9 + length)])
                if received[offset + 3] == 0x7 && payload.count >= 8 {
                    frame = (
                        payload[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF,
                        payload[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) },
                        String(decoding: payload[8...], as: UTF8.self)
                    )
                }
                offset += 9 + length
            }
        }
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
}
