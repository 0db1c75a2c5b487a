import Foundation
import Glibc
import Synchronization
import XCTest

@testable import HTTP2Transport

/// `UnwrittenReplies` through `HTTP1Server.unwrittenReplies` (issue 19 §5: a stop must not free
/// the control connections before their answers are out): an answer too large for the socket
/// buffers counts until the client has read it, and a client that vanishes is forgotten with its
/// connection.
final class UnwrittenRepliesTests: XCTestCase {
    /// Runs `read` on `loop`'s thread and waits for its value.
    func onLoop<T: Sendable>(_ loop: EventLoop, _ read: @escaping @Sendable () -> T) -> T {
        let box = Mutex<T?>(nil)
        loop.execute { box.withLock { $0 = read() } }
        while true {
            if let value = box.withLock({ $0 }) { return value }
            usleep(1000)
        }
    }

    func waitFor(
        _ loop: EventLoop, _ server: HTTP1Server, count: Int, file: StaticString = #filePath, line: UInt = #line
    ) {
        let deadline = Date().addingTimeInterval(5)
        while onLoop(loop, { server.unwrittenReplies }) != count && Date() < deadline { usleep(5000) }
        XCTAssertEqual(onLoop(loop, { server.unwrittenReplies }), count, file: file, line: line)
    }

    func connect(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let request = "GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        return fd
    }

    func testAnAnswerCountsUntilWrittenOrItsConnectionCloses() throws {
        let loop = EventLoop()
        let big = [UInt8](repeating: 0x61, count: 32 << 20)  // far more than the socket buffers hold
        let server = try HTTP1Server(loop: loop, host: "127.0.0.1", port: 0) { _, exchange in
            exchange.respond(status: 200, contentType: "text/plain", body: big)
        }
        loop.start()
        defer {
            loop.execute { server.close() }
            loop.stop()
            loop.waitUntilFinished()
        }
        let port = server.boundAddress.port
        XCTAssertEqual(onLoop(loop, { server.unwrittenReplies }), 0)

        // A client that reads nothing: its answer stays unwritten; once it reads all, it is written.
        let reader = connect(port)
        waitFor(loop, server, count: 1)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var received = 0
        while received <= big.count {
            let n = recv(reader, &chunk, chunk.count, 0)
            guard n > 0 else { break }
            received += n
        }
        XCTAssertGreaterThan(received, big.count, "the whole answer arrived, headers and body")
        waitFor(loop, server, count: 0)
        close(reader)

        // A client that vanishes before reading: forgotten with its connection.
        let leaver = connect(port)
        waitFor(loop, server, count: 1)
        var reset = linger(l_onoff: 1, l_linger: 0)
        setsockopt(leaver, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
        close(leaver)
        waitFor(loop, server, count: 0)
    }
}
