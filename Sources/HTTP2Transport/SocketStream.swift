import CLibevent
import COpenSSL
import Glibc

/// One accepted socket, with or without TLS: its libevent events, the handshake, reads, and the
/// write buffer with the writes that empty it. Knows nothing of HTTP/2.
///
/// Confined to its connection's loop thread. The connection holds it for its whole life and
/// calls it on every read and write, so it is a final class with its state behind
/// `@exclusivity(unchecked)` and its per-request methods `@inline(__always)`, so that the hot
/// path costs what it did when this code sat in `HTTP2Connection` (bench/README.md).
final class SocketStream {
    /// What `read(into:count:)` got.
    enum ReadResult {
        /// This many bytes (more than 0).
        case bytes(Int)
        /// Nothing more to read now.
        case wouldBlock
        /// TLS must write before it can read: the write event is armed, and `writable()` says so
        /// when it fires.
        case blockedOnWrite
        /// The peer closed, or the socket or TLS failed: close the connection.
        case failed
    }

    /// What `handshake()` got.
    enum HandshakeResult {
        /// Done: TLS is established.
        case done
        /// Waiting for the peer (the write event is armed when TLS must write first).
        case inProgress
        /// Failed: close the connection.
        case failed
    }

    /// What `writeOut()` got.
    enum WriteResult {
        /// Everything buffered was written; the buffer is empty.
        case written
        /// The socket would block: the write event is armed, the rest stays buffered.
        case blocked
        /// The socket or TLS failed: close the connection.
        case failed
    }

    private let fd: Int32
    @exclusivity(unchecked) private var ssl: OpaquePointer?
    @exclusivity(unchecked) private var readEvent: OpaquePointer?
    @exclusivity(unchecked) private var writeEvent: OpaquePointer?
    @exclusivity(unchecked) private var writeArmed = false
    @exclusivity(unchecked) private var readBlockedOnWrite = false
    /// What the connection produced and the socket has not taken yet.
    private let outbuf = WriteBuffer(capacity: 16 * 1024)

    /// Takes over `fd` (a connected, non-blocking socket); with `tls`, the connection begins
    /// with a server-side handshake.
    init(fd: Int32, tls: TLSContext?) {
        self.fd = fd
        if let tls {
            ssl = SSL_new(tls.context)
            SSL_set_fd(ssl, fd)
            SSL_set_accept_state(ssl)
        }
    }

    /// True for TLS.
    var isTLS: Bool { ssl != nil }

    /// True once `listen` registered the events (until `close`).
    var isListening: Bool { readEvent != nil }

    /// A libevent callback: `arg` is the `owner` given to `listen`.
    typealias EventCallback = @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void

    /// Registers the socket's events on `loop` and starts reading: `onReadable` runs whenever
    /// the socket is readable, `onWritable` once per `armWrite`-style wait (none: writing is
    /// never waited for). `owner` is passed to both.
    func listen(
        on loop: EventLoop, owner: UnsafeMutableRawPointer, onReadable: EventCallback, onWritable: EventCallback?
    ) {
        readEvent = event_new(loop.base, fd, Int16(EV_READ | EV_PERSIST), onReadable, owner)
        if let onWritable { writeEvent = event_new(loop.base, fd, Int16(EV_WRITE), onWritable, owner) }
        event_add(readEvent, nil)
    }

    // MARK: Reading

    /// Reads and drops what arrived; false when the peer closed or the socket failed.
    func discard(using buffer: UnsafeMutableRawPointer, count size: Int) -> Bool {
        let count = Glibc.read(fd, buffer, size)
        return !(count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR))
    }

    /// Reads up to `size` bytes into `buffer`, decrypted when TLS.
    @inline(__always)
    func read(into buffer: UnsafeMutableRawPointer, count size: Int) -> ReadResult {
        if let ssl {
            SocketStream.clearTLSErrors()
            let result = SSL_read(ssl, buffer, Int32(size))
            if result > 0 { return .bytes(Int(result)) }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ:
                return .wouldBlock
            case SSL_ERROR_WANT_WRITE:
                readBlockedOnWrite = true
                armWrite()
                return .blockedOnWrite
            default:
                return .failed
            }
        }
        let count = Glibc.read(fd, buffer, size)
        if count > 0 { return .bytes(count) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return .wouldBlock }
        return .failed
    }

    /// True when TLS holds decrypted bytes that the socket event will not signal.
    @inline(__always)
    var hasBufferedInput: Bool {
        guard let ssl else { return false }
        return SSL_pending(ssl) > 0
    }

    /// Runs the read callback again soon (for `hasBufferedInput`).
    func signalReadable() {
        event_active(readEvent, EV_READ, 0)
    }

    /// The write event fired: true when a TLS read was waiting for it (read again), false when
    /// buffered bytes were (write them).
    @inline(__always)
    func writable() -> Bool {
        writeArmed = false
        guard readBlockedOnWrite else { return false }
        readBlockedOnWrite = false
        return true
    }

    // MARK: TLS handshake

    /// Advances the TLS handshake.
    func handshake() -> HandshakeResult {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 { return .done }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .inProgress
        case SSL_ERROR_WANT_WRITE:
            armWrite()
            return .inProgress
        default: return .failed
        }
    }

    /// The ALPN protocol agreed in the handshake, or nil when none was.
    func negotiatedProtocol() -> String? {
        var protocolName: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolName, &length)
        guard let protocolName, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: protocolName, count: Int(length)), as: UTF8.self)
    }

    /// The certificate the client presented, with OpenSSL's verdict; nil when it presented none.
    func peerCertificate() -> ClientCertificate? {
        guard let ssl, let cert = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(cert) }
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(cert, &der)
        guard length > 0, let der else { return nil }
        defer { CRYPTO_free(der, #file, #line) }
        let result = SSL_get_verify_result(ssl)
        let verified = result == X509_V_OK
        return ClientCertificate(
            der: Array(UnsafeBufferPointer(start: der, count: Int(length))), verified: verified,
            verifyError: verified ? nil : String(cString: X509_verify_cert_error_string(result)))
    }

    // MARK: Writing

    /// Bytes buffered and not written yet.
    @inline(__always)
    var pendingBytes: Int { outbuf.pending }

    /// Buffers `count` bytes from `bytes` (copied) for `writeOut`.
    @inline(__always)
    func append(_ bytes: UnsafePointer<UInt8>, count: Int) {
        outbuf.append(bytes, count: count)
    }

    /// Forgets what is queued and not yet written (a blackholed connection writes nothing more).
    func dropPendingOutput() {
        outbuf.removeAll()
    }

    /// Writes the buffer out.
    @inline(__always)
    func writeOut() -> WriteResult {
        while outbuf.pending > 0 {
            let remaining = outbuf.pending
            let written: Int = {
                let start = outbuf.unwritten
                if let ssl {
                    SocketStream.clearTLSErrors()
                    let result = SSL_write(ssl, start, Int32(min(remaining, Int(Int32.max))))
                    if result > 0 { return Int(result) }
                    switch SSL_get_error(ssl, result) {
                    case SSL_ERROR_WANT_WRITE, SSL_ERROR_WANT_READ: return 0
                    default: return -1
                    }
                }
                let result = send(fd, start, remaining, Int32(MSG_NOSIGNAL))
                if result >= 0 { return result }
                return errno == EAGAIN || errno == EINTR ? 0 : -1
            }()
            if written < 0 { return .failed }
            if written == 0 {
                armWrite()
                return .blocked
            }
            outbuf.markWritten(written)
        }
        outbuf.removeAll()
        return .written
    }

    /// Waits for the socket to take more (or for TLS to be able to read): the write callback runs.
    private func armWrite() {
        guard !writeArmed, let writeEvent else { return }
        writeArmed = true
        event_add(writeEvent, nil)
    }

    /// Empties this thread's OpenSSL error queue, which must be empty before an I/O call for
    /// `SSL_get_error` to be right. Usually it already is, and peeking is far cheaper than clearing
    /// (which resets every slot); TLS I/O runs three times per request at one stream at a time.
    @inline(__always)
    static func clearTLSErrors() {
        if ERR_peek_error() != 0 { ERR_clear_error() }
    }

    // MARK: Closing

    /// Sends a FIN and keeps reading (TCP half-close; no TLS close_notify): the peer sees the
    /// end of what was written, and what it still sends is read, not answered with a reset.
    func shutdownWrite() {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Frees the events and closes the socket: FIN, or TCP RST when `reset` (no TLS
    /// close_notify either way).
    func close(reset: Bool) {
        if let readEvent { event_free(readEvent) }
        if let writeEvent { event_free(writeEvent) }
        readEvent = nil
        writeEvent = nil
        if reset {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        }
        if let ssl {
            if !reset { SSL_set_quiet_shutdown(ssl, 1) }
            SSL_free(ssl)
            self.ssl = nil
        }
        Glibc.close(fd)
    }
}
