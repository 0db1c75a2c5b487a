import Foundation
import Glibc
import Synchronization

/// A cleartext HTTP/2 "server" on loopback that speaks in hand-built frames, for behaviour
/// nghttpd cannot be asked for: GOAWAY, RST_STREAM, APNs headers and error bodies, silence.
///
/// It accepts connections one at a time, sends `greeting` after the client preface, and calls
/// `reply` for every request (a stream whose HEADERS or DATA carried END_STREAM), writing what
/// it returns. `stop` (call it in tearDown) ends the thread.
final class ScriptedHTTP2Server: Sendable {
    /// What to write for one request, and whether to close the connection afterwards.
    struct Reply: Sendable {
        var bytes: [UInt8]
        var close = false
    }

    let port: Int
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let finished = Mutex<Bool>(false)
    /// Requests seen so far, over all connections.
    let requestCount = Atomic<Int>(0)
    /// The DATA received on each stream of the latest connection.
    let bodies = Mutex<[UInt32: [UInt8]]>([:])

    /// - Parameter reply: given the stream id and the request number (1-based), the bytes to write.
    init(
        greeting: [UInt8] = HTTP2Frames.settings(),
        reply: @escaping @Sendable (_ stream: UInt32, _ number: Int) -> Reply
    ) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> Bool in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound, listen(fd, 8) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in
            serve(greeting: greeting, reply: reply)
            finished.withLock { $0 = true }
        }
        thread.start()
    }

    /// Stops accepting and closes the listener; waits up to a second for the thread.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        for _ in 0..<100 where !finished.withLock({ $0 }) { usleep(10_000) }
        close(listener)
    }

    private func serve(greeting: [UInt8], reply: @Sendable (UInt32, Int) -> Reply) {
        while !stopped.load(ordering: .relaxed) {
            guard wait(for: listener) else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            handle(connection, greeting: greeting, reply: reply)
            close(connection)
        }
    }

    /// True when `fd` is readable within 50 ms.
    private func wait(for fd: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 50) > 0
    }

    private func handle(_ fd: Int32, greeting: [UInt8], reply: @Sendable (UInt32, Int) -> Reply) {
        var input: [UInt8] = []
        var prefaceSeen = false
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !stopped.load(ordering: .relaxed) {
            guard wait(for: fd) else { continue }
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { return }
            input += buffer[0..<count]
            if !prefaceSeen {
                guard input.count >= 24 else { continue }
                input.removeFirst(24)
                prefaceSeen = true
                write(fd, greeting)
            }
            // Whole frames only: 9-byte header, then the payload.
            while input.count >= 9 {
                let length = Int(input[0]) << 16 | Int(input[1]) << 8 | Int(input[2])
                guard input.count >= 9 + length else { break }
                let type = input[3], flags = input[4]
                let stream =
                    UInt32(input[5] & 0x7f) << 24 | UInt32(input[6]) << 16 | UInt32(input[7]) << 8 | UInt32(input[8])
                if type == 0 {
                    let payload = Array(input[9..<(9 + length)])
                    bodies.withLock { $0[stream, default: []] += payload }
                }
                input.removeFirst(9 + length)
                if (type == 0 || type == 1) && flags & 0x1 != 0 && stream > 0 {
                    let number = requestCount.add(1, ordering: .relaxed).newValue
                    let answer = reply(stream, number)
                    write(fd, answer.bytes)
                    if answer.close { return }
                }
            }
        }
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            offset += written
        }
    }
}
