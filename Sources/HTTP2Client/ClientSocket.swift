import COpenSSL
import Glibc
import SystemSupport

/// A connected nonblocking socket, optionally wrapped in TLS: reads and writes that never block.
/// Owned by one `HTTP2ClientConnection` and used only on its thread.
final class ClientSocket {
    /// What a read or write did.
    enum Transfer {
        /// This many bytes moved (more than zero).
        case bytes(Int)
        /// Nothing moved now; poll and retry.
        case wouldBlock
        /// The peer closed the connection (reads only).
        case closed
    }

    let fd: Int32
    private(set) var ssl: OpaquePointer?

    /// Takes ownership of `fd` (and of `ssl` when given): both are freed in `close`.
    init(fd: Int32, ssl: OpaquePointer? = nil) {
        self.fd = fd
        self.ssl = ssl
    }

    deinit { close() }

    private var isClosed = false

    /// Frees TLS and closes the socket; idempotent.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        if let ssl {
            SSL_set_quiet_shutdown(ssl, 1)  // no close_notify: we are done with the peer either way
            SSL_free(ssl)
            self.ssl = nil
        }
        Glibc.close(fd)
    }

    /// Installs TLS after the handshake (the socket then carries TLS records only).
    func adopt(ssl: OpaquePointer) { self.ssl = ssl }

    /// Reads up to `count` bytes into `buffer`.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(HTTP2ClientError) -> Transfer {
        if let ssl {
            ERR_clear_error()
            let result = SSL_read(ssl, buffer, Int32(min(count, Int(Int32.max))))
            if result > 0 { return .bytes(Int(result)) }
            return try tlsFailure(ssl, result, reading: true)
        }
        while true {
            let result = Glibc.read(fd, buffer, count)
            if result > 0 { return .bytes(result) }
            if result == 0 { return .closed }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            if errno == ECONNRESET { throw .connectionClosed }
            throw .io(String(cString: strerror(errno)))
        }
    }

    /// Writes up to `count` bytes from `bytes`.
    func write(_ bytes: UnsafeRawPointer, count: Int) throws(HTTP2ClientError) -> Transfer {
        if let ssl {
            ERR_clear_error()
            let result = SSL_write(ssl, bytes, Int32(min(count, Int(Int32.max))))
            if result > 0 { return .bytes(Int(result)) }
            return try tlsFailure(ssl, result, reading: false)
        }
        while true {
            let result = send(fd, bytes, count, Int32(MSG_NOSIGNAL))
            if result >= 0 { return result == 0 ? .wouldBlock : .bytes(result) }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            if errno == EPIPE || errno == ECONNRESET { throw .connectionClosed }
            throw .io(String(cString: strerror(errno)))
        }
    }

    /// Maps a failed SSL_read/SSL_write to a transfer or an error.
    private func tlsFailure(_ ssl: OpaquePointer, _ result: Int32, reading: Bool) throws(HTTP2ClientError) -> Transfer {
        let code = SSL_get_error(ssl, result)
        switch code {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            if reading { return .closed }
            throw .connectionClosed
        case SSL_ERROR_SYSCALL:
            let message = OpenSSLErrorQueue.drain()
            // errno 0 / EPIPE / ECONNRESET: the peer went away without close_notify.
            if let message { throw .tlsFailed(message) }
            if errno == 0 || errno == EPIPE || errno == ECONNRESET {
                if reading { return .closed }
                throw .connectionClosed
            }
            throw .io(String(cString: strerror(errno)))
        default:
            throw .tlsFailed(OpenSSLErrorQueue.drain() ?? "SSL error \(code)")
        }
    }
}
