import Foundation
import Glibc
import Synchronization
import XCTest

@testable import HTTP2Transport

/// `HTTP1ResponseStream`: a chunked answer written piece by piece, its unsent bytes counted, the
/// client's leaving seen, and the idle timeout not applied while it is open.
final class HTTP1ResponseStreamTests: XCTestCase {
    private final class Box: @unchecked Sendable {
        var stream: HTTP1ResponseStream?
    }

    private func onLoop<T: Sendable>(_ loop: EventLoop, _ read: @escaping @Sendable () -> T) -> T {
        let box = Mutex<T?>(nil)
        loop.execute { box.withLock { $0 = read() } }
        while true {
            if let value = box.withLock({ $0 }) { return value }
            usleep(1000)
        }
    }

    private func connect(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var wait = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let request = "GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        return fd
    }

    /// Reads until `marker` arrived (or the end); returns everything read. Looks for the marker
    /// only in what is new (and the marker's length before it), so megabytes read in linear time.
    private func read(_ fd: Int32, until marker: String) -> String {
        let wanted = Array(marker.utf8)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        func found(from start: Int) -> Bool {
            guard bytes.count >= wanted.count else { return false }
            var i = max(0, start - wanted.count)
            while i + wanted.count <= bytes.count {
                if bytes[i..<(i + wanted.count)].elementsEqual(wanted) { return true }
                i += 1
            }
            return false
        }
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { break }
            let start = bytes.count
            bytes += chunk[..<n]
            if found(from: start) { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func testChunksUnsentBytesIdleTimeoutAndFinish() throws {
        let loop = EventLoop()
        let box = Box()
        let server = try HTTP1Server(loop: loop, host: "127.0.0.1", port: 0, idleTimeoutSeconds: 1) { _, exchange in
            box.stream = exchange.startStream(contentType: "text/event-stream", headers: [("X-Test", "1")])
            box.stream?.write(Array("first\n".utf8))
        }
        loop.start()
        defer {
            loop.execute { server.close() }
            loop.stop()
            loop.waitUntilFinished()
        }
        let fd = connect(server.boundAddress.port)
        defer { close(fd) }
        let head = read(fd, until: "first\n")
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 200 OK\r\n"), head)
        XCTAssertTrue(head.lowercased().contains("transfer-encoding: chunked"), head)
        XCTAssertTrue(head.contains("Content-Type: text/event-stream"), head)
        XCTAssertTrue(head.contains("X-Test: 1"), head)
        // Two idle timeouts later the stream is still open.
        sleep(2)
        XCTAssertTrue(onLoop(loop, { box.stream?.isOpen ?? false }))
        onLoop(loop) { box.stream?.write(Array("second\n".utf8)) }
        XCTAssertTrue(read(fd, until: "second\n").contains("second\n"))
        // A client that reads nothing: what is written waits in the output buffer.
        let big = [UInt8](repeating: 0x61, count: 8 << 20)
        onLoop(loop) { box.stream?.write(big) }
        XCTAssertGreaterThan(onLoop(loop, { box.stream?.unsentBytes ?? 0 }), 1 << 20)
        // Finished: the rest and the last chunk arrive, then the connection closes.
        onLoop(loop) { box.stream?.finish(lingerSeconds: 5) }
        XCTAssertFalse(onLoop(loop, { box.stream?.isOpen ?? true }))
        let rest = read(fd, until: "\r\n0\r\n\r\n")
        XCTAssertTrue(rest.hasSuffix("\r\n0\r\n\r\n"), String(rest.suffix(20)))
        var byte: UInt8 = 0
        XCTAssertEqual(recv(fd, &byte, 1, 0), 0, "closed after the last chunk")
    }

    func testAClientThatLeavesClosesTheStream() throws {
        let loop = EventLoop()
        let box = Box()
        let server = try HTTP1Server(loop: loop, host: "127.0.0.1", port: 0) { _, exchange in
            box.stream = exchange.startStream(contentType: "application/x-ndjson")
            box.stream?.write(Array("{}\n".utf8))
        }
        loop.start()
        defer {
            loop.execute { server.close() }
            loop.stop()
            loop.waitUntilFinished()
        }
        let fd = connect(server.boundAddress.port)
        _ = read(fd, until: "{}\n")
        close(fd)
        let deadline = Date().addingTimeInterval(5)
        while onLoop(loop, { box.stream?.isOpen ?? false }) && Date() < deadline {
            onLoop(loop) { box.stream?.write(Array("{}\n".utf8)) }
            usleep(10_000)
        }
        XCTAssertFalse(onLoop(loop, { box.stream?.isOpen ?? true }))
        XCTAssertEqual(onLoop(loop, { box.stream?.unsentBytes ?? -1 }), 0)
        onLoop(loop) { box.stream?.finish(lingerSeconds: 0) }  // frees the detached request
    }
}
