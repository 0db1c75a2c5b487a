import Glibc

/// One accepted connection of a `ByteStreamServer`: a TLS (or cleartext) byte stream with no
/// protocol of its own, for the legacy binary gateway and the feedback service
/// (docs/legacy-binary.md). Confined to the server's loop thread: call its methods from the
/// handler's callbacks or through `ByteStreamServer.execute`.
public final class ByteStreamConnection {
    /// Who connected, on which listener, with which client certificate.
    public private(set) var info: AcceptedConnection
    /// True once the socket is closed.
    public private(set) var isClosed = false
    /// True once `closeAfterWriting` was called: what arrives meanwhile stays in the kernel.
    public private(set) var isReadingStopped = false
    private let socket: SocketStream
    private let loop: EventLoop
    private unowned let handler: ByteStreamHandler
    private let onClose: (ByteStreamConnection) -> Void
    private var established = false
    private var closeWhenWritten = false
    /// With `closeWhenWritten`: seconds to keep reading after the FIN (0: close at once).
    private var drainAfterWriting = 0.0
    /// True once the FIN was sent by `finish(drainFor:)`: reads go on until the peer closes.
    public private(set) var isDraining = false
    private var handshakeTimer: LoopTimer?
    private var drainTimer: LoopTimer?
    /// Seconds without a byte from the peer before the connection is closed; nil: never.
    private let idleTimeout: Double?
    private var idleTimer: LoopTimer?
    /// When the peer last sent bytes (or the stream was established), monotonic seconds.
    private var lastActivity = 0.0
    /// True when the idle timeout closed it.
    public private(set) var closedIdle = false
    /// True once the TLS handshake (or, cleartext, the accept) is done.
    public var isEstablished: Bool { established }
    /// When it was accepted, monotonic seconds (`HTTP2Connection.monotonicSeconds()`).
    public let acceptedAt = HTTP2Connection.monotonicSeconds()
    /// With `finish(drainFor:whenWritten:)`: told once everything queued was written (handed to
    /// the socket), before the FIN; never when the connection closes first.
    private var onWritten: (() -> Void)?

    /// How long a TLS handshake may take, in seconds.
    static let handshakeTimeout = 10.0

    init(
        fd: Int32, info: AcceptedConnection, loop: EventLoop, tls: TLSContext?, handler: ByteStreamHandler,
        idleTimeout: Double? = nil, onClose: @escaping (ByteStreamConnection) -> Void
    ) {
        self.idleTimeout = idleTimeout
        self.info = info
        self.loop = loop
        self.handler = handler
        self.onClose = onClose
        socket = SocketStream(fd: fd, tls: tls)
    }

    /// Registers the socket's events and begins the handshake (or, cleartext, the stream).
    func start() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        socket.listen(
            on: loop, owner: me,
            onReadable: { _, _, arg in
                Unmanaged<ByteStreamConnection>.fromOpaque(arg!).takeUnretainedValue().onReadable()
            },
            onWritable: { _, _, arg in
                Unmanaged<ByteStreamConnection>.fromOpaque(arg!).takeUnretainedValue().onWritable()
            })
        if socket.isTLS {
            handshakeTimer = loop.schedule(after: Self.handshakeTimeout) { [weak self] in
                guard let self, !self.established else { return }
                self.tearDown(reset: false, byPeer: false)
            }
            continueHandshake()
        } else {
            establish()
        }
    }

    private func onReadable() {
        guard !isClosed else { return }
        if !established {
            continueHandshake()
        } else {
            readAll()
        }
    }

    private func onWritable() {
        guard !isClosed else { return }
        let readWaited = socket.writable()
        if !established {
            continueHandshake()
        } else if readWaited {
            readAll()
        } else {
            flush()
        }
    }

    private func continueHandshake() {
        switch socket.handshake() {
        case .inProgress: return
        case .failed: tearDown(reset: false, byPeer: false)
        case .done:
            info.alpn = socket.negotiatedProtocol()
            info.clientCertificate = socket.peerCertificate()
            establish()
        }
    }

    private func establish() {
        handshakeTimer?.cancel()
        handshakeTimer = nil
        established = true
        lastActivity = HTTP2Connection.monotonicSeconds()
        if let idleTimeout { scheduleIdleCheck(after: idleTimeout) }
        handler.connectionOpened(self)
        if !isClosed && !isReadingStopped { readAll() }
    }

    private func readAll() {
        for _ in 0..<32 {
            guard !isClosed, !isReadingStopped else { return }
            switch socket.read(into: loop.readBuffer, count: EventLoop.readBufferSize) {
            case .bytes(let count):
                // A timestamp, not a new timer per read: the check reschedules itself.
                if idleTimeout != nil { lastActivity = HTTP2Connection.monotonicSeconds() }
                handler.received(UnsafeRawBufferPointer(start: loop.readBuffer, count: count), on: self)
            case .wouldBlock, .blockedOnWrite:
                return
            case .failed:
                tearDown(reset: false, byPeer: true)
                return
            }
        }
        if !isClosed && socket.hasBufferedInput { socket.signalReadable() }
    }

    /// Queues `bytes` and writes what the socket takes now; the rest when it can.
    public func write(_ bytes: [UInt8]) {
        guard !isClosed, !isDraining, !bytes.isEmpty else { return }
        bytes.withUnsafeBufferPointer { socket.append($0.baseAddress!, count: $0.count) }
        flush()
    }

    /// Closes (FIN) once everything queued is written; reads nothing meanwhile.
    public func closeAfterWriting() {
        guard !isClosed else { return }
        isReadingStopped = true
        closeWhenWritten = true
        flush()
    }

    /// Writes everything queued, then sends a FIN and goes on reading for up to `seconds` (the
    /// handler still gets what arrives), closing when the peer closes or the time is up. Unlike
    /// `closeAfterWriting`, a peer that is still sending gets no TCP reset, which could drop the
    /// last bytes written before the client read them.
    /// `whenWritten` is told once everything queued was written, never if the connection closes
    /// (the peer gone, a reset, the drain time) first.
    public func finish(drainFor seconds: Double, whenWritten: (() -> Void)? = nil) {
        guard !isClosed, !closeWhenWritten else { return }
        closeWhenWritten = true
        onWritten = whenWritten
        drainAfterWriting = seconds
        flush()
    }

    /// Runs `task` on the loop's thread `seconds` from now, unless the connection closed meanwhile.
    public func schedule(after seconds: Double, _ task: @escaping () -> Void) {
        _ = loop.schedule(after: seconds) { [weak self] in
            guard let self, !self.isClosed else { return }
            task()
        }
    }

    /// Closes now: FIN, or TCP RST when `reset`; what is queued is dropped.
    public func close(reset: Bool = false) {
        guard !isClosed else { return }
        if reset { socket.dropPendingOutput() }
        tearDown(reset: reset, byPeer: false)
    }

    private func flush() {
        switch socket.writeOut() {
        case .written:
            guard closeWhenWritten, !isDraining else { return }
            if let written = onWritten {
                onWritten = nil
                written()
            }
            if drainAfterWriting > 0 {
                isDraining = true
                socket.shutdownWrite()
                drainTimer = loop.schedule(after: drainAfterWriting) { [weak self] in
                    self?.tearDown(reset: false, byPeer: false)
                }
            } else {
                tearDown(reset: false, byPeer: false)
            }
        case .blocked:
            return
        case .failed:
            tearDown(reset: false, byPeer: true)
        }
    }

    /// Closes the connection (FIN; what is still queued, for a peer that reads nothing either, is
    /// dropped) once the peer has sent nothing for `idleTimeout` seconds; checked when that much
    /// time may have passed since the last read.
    private func scheduleIdleCheck(after seconds: Double) {
        idleTimer = loop.schedule(after: seconds) { [weak self] in
            guard let self, !self.isClosed, let timeout = self.idleTimeout else { return }
            let quiet = HTTP2Connection.monotonicSeconds() - self.lastActivity
            if quiet >= timeout - 0.001 {
                self.closedIdle = true
                self.close()
            } else {
                self.scheduleIdleCheck(after: timeout - quiet)
            }
        }
    }

    private func tearDown(reset: Bool, byPeer: Bool) {
        guard !isClosed else { return }
        isClosed = true
        idleTimer?.cancel()
        idleTimer = nil
        handshakeTimer?.cancel()
        handshakeTimer = nil
        drainTimer?.cancel()
        drainTimer = nil
        onWritten = nil
        socket.close(reset: reset)
        if established { handler.connectionClosed(self, byPeer: byPeer) }
        onClose(self)
    }
}
