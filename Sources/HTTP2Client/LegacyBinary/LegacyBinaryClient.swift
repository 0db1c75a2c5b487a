import Glibc
import SystemSupport

/// A blocking TLS client of a byte stream, for the legacy binary gateway and the feedback
/// service (`mock-apns send --binary`, `mock-apns feedback`; docs/legacy-binary.md): connect,
/// write, read what the server sends until it closes or a wait ends. Same TLS as the HTTP/2
/// client (TLS 1.2+, server verification, optional client certificate).
public final class LegacyBinaryClient {
    private let socket: ClientSocket

    private init(socket: ClientSocket) {
        self.socket = socket
    }

    /// Connects to `host:port` and runs the TLS handshake within `timeout` seconds.
    /// - Throws: `HTTP2ClientError` (resolution, refusal, TLS failures, timeout).
    public static func connect(host: String, port: Int, tls: HTTP2ClientTLSOptions, timeout: Double)
        throws(HTTP2ClientError) -> LegacyBinaryClient
    {
        let deadline = MonotonicClock.deadline(after: timeout)
        let fd = try TCPConnector.connect(host: host, port: port, deadline: deadline, timeout: timeout)
        let socket = ClientSocket(fd: fd)
        let (ssl, _) = try ClientTLSHandshake.run(
            fd: fd, host: host, options: tls, deadline: deadline, timeout: timeout)
        socket.adopt(ssl: ssl)
        return LegacyBinaryClient(socket: socket)
    }

    /// Writes all of `bytes`, waiting up to `timeout` seconds for the socket to take them.
    /// - Throws: `HTTP2ClientError.connectionClosed` when the server closed, `.timedOut`.
    public func write(_ bytes: [UInt8], timeout: Double) throws(HTTP2ClientError) {
        let deadline = MonotonicClock.deadline(after: timeout)
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { raw -> Result<ClientSocket.Transfer, HTTP2ClientError> in
                do throws(HTTP2ClientError) {
                    return .success(try socket.write(raw.baseAddress! + offset, count: raw.count - offset))
                } catch {
                    return .failure(error)
                }
            }
            let transfer = try result.get()
            switch transfer {
            case .bytes(let count): offset += count
            case .wouldBlock, .closed:
                guard wait(for: POLLOUT, until: deadline) else {
                    throw .timedOut(what: "writing", seconds: timeout)
                }
            }
        }
    }

    /// Reads until the server closes or `seconds` pass; returns the bytes and whether it closed.
    public func readUntilClosed(waiting seconds: Double) -> (bytes: [UInt8], closed: Bool) {
        let deadline = MonotonicClock.deadline(after: seconds)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let result = buffer.withUnsafeMutableBytes { raw -> Result<ClientSocket.Transfer, HTTP2ClientError> in
                do throws(HTTP2ClientError) {
                    return .success(try socket.read(into: raw.baseAddress!, count: raw.count))
                } catch {
                    return .failure(error)
                }
            }
            guard case .success(let transfer) = result else {
                return (bytes, true)  // a reset or TLS failure ends the connection too
            }
            switch transfer {
            case .bytes(let count): bytes += buffer[0..<count]
            case .closed: return (bytes, true)
            case .wouldBlock:
                if !wait(for: POLLIN, until: deadline) { return (bytes, false) }
            }
        }
    }

    /// Closes the connection.
    public func close() {
        socket.close()
    }

    private func wait(for events: Int32, until deadline: UInt64) -> Bool {
        var poller = pollfd(fd: socket.fd, events: Int16(events), revents: 0)
        while true {
            let ready = poll(&poller, 1, MonotonicClock.pollTimeout(until: deadline))
            if ready > 0 { return true }
            if ready == 0 { return false }
            if errno != EINTR { return false }
        }
    }
}
