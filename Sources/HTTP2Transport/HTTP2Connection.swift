import CLibevent
import CNGHTTP2
import COpenSSL
import Glibc

/// One accepted connection: socket, optional TLS, and the nghttp2 server session.
///
/// Confined to its worker's loop thread: every method must be called there (use
/// `loop.execute` from elsewhere). Bytes flow socket → (TLS) → `nghttp2_session_mem_recv`;
/// answers flow `nghttp2_session_mem_send` → one write buffer → (TLS) → socket.
public final class HTTP2Connection: @unchecked Sendable {
    /// Identity and addressing, fixed at accept time (ALPN filled after the handshake).
    public private(set) var info: HTTP2ConnectionInfo
    /// The loop this connection lives on.
    public let loop: EventLoop
    /// Free for the application: per-connection state it wants to keep (touch on the loop thread).
    public var context: AnyObject? {
        get { storedContext }
        set { storedContext = newValue }
    }
    /// Behind accessors because another module ignores `@exclusivity(unchecked)` and checks each
    /// access to a stored property (about 80 instructions; the handler reads it per request).
    @exclusivity(unchecked) private var storedContext: AnyObject?

    enum Phase { case handshaking, open, draining, closed }
    private(set) var phase: Phase
    private let fd: Int32
    private var ssl: OpaquePointer?
    private var session: OpaquePointer?
    private var readEvent: OpaquePointer?
    private var writeEvent: OpaquePointer?
    private var writeArmed = false
    private var readBlockedOnWrite = false
    /// What nghttp2 produced and the socket has not taken yet.
    private let outbuf = WriteBuffer(capacity: 16 * 1024)
    // Confined to the loop thread and never accessed overlappingly: the runtime exclusivity
    // check (about 80 instructions per access, several per request) buys nothing here.
    /// The open streams.
    private let streams = StreamTable()
    /// Objects of closed streams kept for new ones.
    @exclusivity(unchecked) private var spares = SpareStreams()
    /// The regular header fields of the last request header block completed, and the position
    /// of the first of them (see `finishHeaderBlock`).
    @exclusivity(unchecked) private var previousBlock: [HeaderField] = []
    @exclusivity(unchecked) private var previousBlockStart = -1
    /// `interner.changes` when `previousBlock` was taken: its fields are the interner's own at
    /// their positions only while that holds (a block that made new fields and never completed,
    /// or trailers, replace remembered fields without becoming the previous block).
    @exclusivity(unchecked) private var previousBlockChanges: UInt64 = 0
    /// Makes the Strings of received header fields, reusing those of earlier requests.
    private let interner = HeaderFieldInterner()
    /// The listener's SETTINGS and limits, as given before `HTTP2RequestHandler.settings(for:proposed:)`
    /// could change what is announced.
    public let settings: HTTP2Settings
    private let handler: HTTP2RequestHandler
    private let alpnRequired: Bool
    private let onClose: (HTTP2Connection) -> Void
    private var drainTimer: LoopTimer?
    /// Closes a TLS connection whose handshake does not finish in time.
    private var handshakeTimer: LoopTimer?
    /// Ends the connection after `settings.idleTimeout` without a completed request.
    private var idleTimer: LoopTimer?
    /// While set, received DATA is not acknowledged (see `withholdWindowUpdates`).
    private var windowStall: LoopTimer?
    /// DATA received during a stall, acknowledged when it ends.
    private var withheld: [(streamID: Int32, length: Int)] = []
    /// When the last request completed (monotonic seconds).
    private var lastActivity = 0.0
    /// True while `nghttp2_session_mem_recv` runs (and so our callbacks may run).
    private var insideSession = false
    /// A close asked for from inside a callback, carried out when nghttp2 returns (true = reset).
    private var closeRequested: Bool?
    /// Close (true = reset) as soon as everything queued so far has been written.
    private var closeWhenWritten: Bool?
    /// After GOAWAY, keep the socket open (new streams are ignored) instead of closing when idle;
    /// a timer, if any, closes it.
    private var keepOpenAfterGoAway = false
    /// True once the handler was told of the connection (it then hears of the close too).
    private var opened = false
    /// When true, the handler is asked about each request as soon as its HEADERS arrive
    /// (`HTTP2RequestHandler.headersReceived`). Set on the loop thread.
    @exclusivity(unchecked) public var decideOnHeaders = false
    /// When the connection was accepted, monotonic seconds (`CLOCK_MONOTONIC`).
    public let acceptedAt: Double = HTTP2Connection.monotonicSeconds()
    /// The MAX_CONCURRENT_STREAMS this side announced last.
    public private(set) var announcedMaxConcurrentStreams: UInt32 = 0
    /// Requests completed on this connection.
    @exclusivity(unchecked) public private(set) var requestCount: UInt64 = 0

    init(fd: Int32, info: HTTP2ConnectionInfo, loop: EventLoop, tls: TLSContext?, settings: HTTP2Settings,
         handler: HTTP2RequestHandler, onClose: @escaping (HTTP2Connection) -> Void) {
        self.fd = fd
        self.info = info
        self.loop = loop
        self.settings = settings
        self.handler = handler
        self.onClose = onClose
        self.alpnRequired = tls?.alpn == .required
        phase = tls == nil ? .open : .handshaking
        if let tls {
            ssl = SSL_new(tls.context)
            SSL_set_fd(ssl, fd)
            SSL_set_accept_state(ssl)
        }
    }

    /// Registers the socket events and, for cleartext, starts HTTP/2 at once.
    func start() {
        guard phase != .closed, readEvent == nil else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        readEvent = event_new(loop.base, fd, Int16(EV_READ | EV_PERSIST), { _, _, arg in
            Unmanaged<HTTP2Connection>.fromOpaque(arg!).takeUnretainedValue().onReadable()
        }, me)
        writeEvent = event_new(loop.base, fd, Int16(EV_WRITE), { _, _, arg in
            Unmanaged<HTTP2Connection>.fromOpaque(arg!).takeUnretainedValue().onWritable()
        }, me)
        event_add(readEvent, nil)
        if ssl == nil {
            startSession()
            flush()
        } else {
            handshakeTimer = loop.schedule(after: settings.handshakeTimeout) { [weak self] in
                guard let self, self.phase == .handshaking else { return }
                self.close()
            }
        }
    }

    /// Reads and drops whatever the client sends and never answers; closes when the client
    /// does, so a silent connection does not outlive its client.
    func startSilently() {
        guard phase != .closed, readEvent == nil else { return }
        let me = Unmanaged.passUnretained(self).toOpaque()
        readEvent = event_new(loop.base, fd, Int16(EV_READ | EV_PERSIST), { _, _, arg in
            Unmanaged<HTTP2Connection>.fromOpaque(arg!).takeUnretainedValue().discardInput()
        }, me)
        event_add(readEvent, nil)
    }

    private func discardInput() {
        let count = Glibc.read(fd, loop.readBuffer, EventLoop.readBufferSize)
        if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { close() }
    }

    // MARK: Socket events

    private func onReadable() {
        switch phase {
        case .handshaking: continueHandshake()
        case .open, .draining: readAndProcess()
        case .closed: return
        }
    }

    private func onWritable() {
        writeArmed = false
        switch phase {
        case .handshaking: continueHandshake()
        case .open, .draining:
            if readBlockedOnWrite {
                readBlockedOnWrite = false
                readAndProcess()
            } else {
                flush()
            }
        case .closed: return
        }
    }

    private func armWrite() {
        guard !writeArmed, phase != .closed else { return }
        writeArmed = true
        event_add(writeEvent, nil)
    }

    private func continueHandshake() {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            var protocolName: UnsafePointer<UInt8>?
            var length: UInt32 = 0
            SSL_get0_alpn_selected(ssl, &protocolName, &length)
            if let protocolName, length > 0 {
                info.alpn = String(decoding: UnsafeBufferPointer(start: protocolName, count: Int(length)), as: UTF8.self)
            } else if alpnRequired {
                close()
                return
            }
            info.clientCertificate = peerCertificate()
            handshakeTimer?.cancel()
            handshakeTimer = nil
            phase = .open
            startSession()
            readAndProcess()  // the client's preface may already sit in OpenSSL's buffer
            return
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return
        case SSL_ERROR_WANT_WRITE: armWrite()
        default: close()
        }
    }

    private func peerCertificate() -> ClientCertificate? {
        guard let ssl, let cert = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(cert) }
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(cert, &der)
        guard length > 0, let der else { return nil }
        defer { CRYPTO_free(der, #file, #line) }
        let result = SSL_get_verify_result(ssl)
        let verified = result == X509_V_OK
        return ClientCertificate(der: Array(UnsafeBufferPointer(start: der, count: Int(length))), verified: verified,
                                 verifyError: verified ? nil : String(cString: X509_verify_cert_error_string(result)))
    }

    private func readAndProcess() {
        let buffer = loop.readBuffer
        let size = EventLoop.readBufferSize
        for _ in 0..<32 {
            guard phase != .closed else { return }
            var count: Int
            if let ssl {
                HTTP2Connection.clearTLSErrors()
                let result = SSL_read(ssl, buffer, Int32(size))
                if result <= 0 {
                    switch SSL_get_error(ssl, result) {
                    case SSL_ERROR_WANT_READ:
                        flush()
                        return
                    case SSL_ERROR_WANT_WRITE:
                        readBlockedOnWrite = true
                        armWrite()
                        return
                    default:
                        close()
                        return
                    }
                }
                count = Int(result)
            } else {
                count = Glibc.read(fd, buffer, size)
                if count == 0 { close(); return }
                if count < 0 {
                    if errno == EAGAIN || errno == EINTR { flush(); return }
                    close()
                    return
                }
            }
            insideSession = true
            let consumed = nghttp2_session_mem_recv(session, buffer.assumingMemoryBound(to: UInt8.self), count)
            insideSession = false
            if let reset = closeRequested {
                close(reset: reset)
                return
            }
            if closeWhenWritten != nil {  // answer what was decided, then close: read no further
                flush()
                return
            }
            if consumed < 0 {
                // nghttp2 queued a GOAWAY for protocol errors: send it, then close.
                flush()
                close()
                return
            }
            if ssl == nil && count < size { break }
        }
        flush()
        // Bounded for fairness; TLS may still hold decrypted bytes the socket event won't signal.
        if let ssl, phase != .closed, SSL_pending(ssl) > 0 {
            event_active(readEvent, EV_READ, 0)
        }
    }

    /// Empties this thread's OpenSSL error queue, which must be empty before an I/O call for
    /// `SSL_get_error` to be right. Usually it already is: peeking costs a few dozen
    /// instructions, clearing about 800 (it resets every slot), and TLS I/O runs three times
    /// per request at one stream at a time.
    @inline(__always)
    static func clearTLSErrors() {
        if ERR_peek_error() != 0 { ERR_clear_error() }
    }

    /// Moves everything nghttp2 wants to send to the socket, closing when the session is done.
    /// Deferred while nghttp2 is running our callbacks: it must not be re-entered.
    func flush() {
        guard phase != .closed, !insideSession, let session else { return }
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 { close(); return }
            if count == 0 { break }
            guard let data else { continue }
            outbuf.append(data, count: count)
            if outbuf.pending >= 64 * 1024 && !writeOut() { return }
        }
        guard writeOut() else { return }
        if let reset = closeWhenWritten {
            close(reset: reset)
        } else if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 && !keepOpenAfterGoAway {
            close()
        } else if phase == .draining && streams.isEmpty && !keepOpenAfterGoAway {
            close()
        }
    }

    /// Writes the buffer; false when the socket would block (write event armed) or failed.
    private func writeOut() -> Bool {
        while outbuf.pending > 0 {
            let remaining = outbuf.pending
            let written: Int = {
                let start = outbuf.unwritten
                if let ssl {
                    HTTP2Connection.clearTLSErrors()
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
            if written < 0 { close(); return false }
            if written == 0 { armWrite(); return false }
            outbuf.markWritten(written)
        }
        outbuf.removeAll()
        return true
    }

    // MARK: HTTP/2 session

    private func startSession() {
        var session: OpaquePointer?
        let me = Unmanaged.passUnretained(self).toOpaque()
        nghttp2_session_server_new2(&session, HTTP2Callbacks.shared.callbacks, me, HTTP2Callbacks.shared.options)
        self.session = session
        let settings = handler.settings(for: self, proposed: self.settings)
        announcedMaxConcurrentStreams = settings.maxConcurrentStreams
        var entries = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE.rawValue), value: settings.headerTableSize),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: settings.maxConcurrentStreams),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: settings.initialWindowSize),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_FRAME_SIZE.rawValue), value: settings.maxFrameSize),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: settings.maxHeaderListSize),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
        opened = true
        lastActivity = HTTP2Connection.monotonicSeconds()
        if let idle = settings.idleTimeout { armIdleTimer(after: idle) }
        handler.connectionOpened(self)
    }

    /// Acknowledges received DATA so nghttp2 sends WINDOW_UPDATE, unless a stall holds it back.
    private func consume(_ streamID: Int32, _ length: Int) {
        if windowStall != nil {
            withheld.append((streamID, length))
        } else {
            nghttp2_session_consume(session, streamID, length)
        }
    }

    /// Sends no WINDOW_UPDATE for `seconds`: received DATA is acknowledged only afterwards, so
    /// a sender's flow-control window runs dry (a stall as the client sees it). `ended` is
    /// called with the bytes acknowledged when the stall ends (not when a new stall replaces
    /// it or the connection closes first).
    public func withholdWindowUpdates(for seconds: Double, ended: ((_ withheldBytes: Int) -> Void)? = nil) {
        guard phase == .open else { return }
        windowStall?.cancel()
        windowStall = loop.schedule(after: seconds) { [weak self] in
            guard let self, let session = self.session else { return }
            self.windowStall = nil
            let withheldBytes = self.withheld.reduce(0) { $0 + $1.length }
            for (streamID, length) in self.withheld {
                // A stream may be gone; its bytes still count for the connection window.
                if nghttp2_session_consume(session, streamID, length) != 0 {
                    nghttp2_session_consume_connection(session, length)
                }
            }
            self.withheld.removeAll()
            self.flush()
            ended?(withheldBytes)
        }
    }

    /// One timer per idle period, not per request: when it fires early (requests came since it
    /// was set), it re-arms for the rest.
    private func armIdleTimer(after seconds: Double) {
        idleTimer = loop.schedule(after: seconds) { [weak self] in
            guard let self, self.phase == .open, let idle = self.settings.idleTimeout else { return }
            let quiet = HTTP2Connection.monotonicSeconds() - self.lastActivity
            if quiet + 0.001 < idle {
                self.armIdleTimer(after: idle - quiet)
            } else if let debugData = self.settings.idleGoAwayDebugData {
                // Told first, so the record comes before the close the GOAWAY may lead to at once.
                self.handler.transportEvent(.idleGoAway(lastStreamID: self.lastProcessedStreamID, debugData: debugData), on: self)
                self.goAway(errorCode: 0, debugData: debugData)
            } else {
                self.handler.transportEvent(.idleReset, on: self)
                self.close(reset: true)
            }
        }
    }

    func beginStream(_ streamID: Int32) {
        if let spare = spares.take() {
            spare.id = streamID
            streams.insert(spare)
        } else {
            streams.insert(StreamState(id: streamID))
        }
    }

    /// The open stream `streamID`, if any.
    @inline(__always)
    private func stream(_ streamID: Int32) -> StreamState? { streams.stream(streamID) }

    func header(_ streamID: Int32, name: UnsafePointer<UInt8>, nameLength: Int, value: UnsafePointer<UInt8>, valueLength: Int) {
        streams.withStream(streamID) { header(on: $0, name: name, nameLength: nameLength, value: value, valueLength: valueLength) }
    }

    @inline(__always)
    private func header(on stream: StreamState, name: UnsafePointer<UInt8>, nameLength: Int, value: UnsafePointer<UInt8>,
                        valueLength: Int) {
        guard !stream.headerListTooLarge else { return }
        // nghttp2 advertises MAX_HEADER_LIST_SIZE but leaves enforcing it to us; HPACK lets a
        // small frame expand to megabytes, so stop storing at the limit.
        stream.headerListSize += nameLength + valueLength + 32
        if stream.headerListSize > Int(settings.maxHeaderListSize) {
            stream.headerListTooLarge = true
            stream.headers = []
            stream.repeatedFields = -1
            return
        }
        let position = stream.fieldCount
        stream.fieldCount += 1
        let nameBytes = UnsafeBufferPointer(start: name, count: nameLength)
        let valueBytes = UnsafeBufferPointer(start: value, count: valueLength)
        if nameLength > 0 && name[0] == UInt8(ascii: ":") {
            switch nameLength {
            case 5 where name[1] == UInt8(ascii: "p"):  // :path
                stream.path = interner.value(at: position, name: nameBytes, value: valueBytes)
            case 7 where name[1] == UInt8(ascii: "m"):  // :method
                stream.method = interner.value(at: position, name: nameBytes, value: valueBytes)
            case 10 where name[1] == UInt8(ascii: "a"):  // :authority
                stream.authority = interner.value(at: position, name: nameBytes, value: valueBytes)
            default: break  // :scheme: nghttp2 checks it, and no String is made of it
            }
            return
        }
        if stream.firstRegularField < 0 { stream.firstRegularField = position }
        let repeated = stream.repeatedFields
        if repeated >= 0 {  // -1 once the block differs, and after it (trailers)
            // Still the previous block's fields, at the same positions: count, store nothing.
            if repeated < previousBlock.count && position == previousBlockStart + repeated
                && interner.changes == previousBlockChanges
                && interner.repeats(at: position, name: nameBytes, value: valueBytes) {
                stream.repeatedFields = repeated + 1
                return
            }
            stream.repeatedFields = -1
            stream.headers.reserveCapacity(max(8, repeated + 1))
            stream.headers.append(contentsOf: previousBlock[0..<repeated])
        }
        stream.headers.append(interner.field(at: position, name: nameBytes, value: valueBytes))
    }

    /// The request's header block is complete: a block that repeated the connection's previous
    /// one gets that block's list itself (one reference instead of a String pair per field),
    /// a shorter one its first fields; a block that differed becomes the one the next is
    /// compared with. Trailers come later and are stored field by field.
    private func finishHeaderBlock(_ stream: StreamState) {
        let repeated = stream.repeatedFields
        stream.repeatedFields = -1
        stream.headerBlockDone = true
        // MAX_HEADER_LIST_SIZE bounds each field section (RFC 9113 section 6.5.2): trailers are
        // counted on their own, not on top of the header section.
        stream.headerListSize = 0
        guard !stream.headerListTooLarge else { return }
        if repeated >= 0 {
            if repeated == previousBlock.count && interner.changes == previousBlockChanges {
                stream.headers = previousBlock
                return
            }
            stream.headers.append(contentsOf: previousBlock[0..<repeated])
        }
        previousBlock = stream.headers
        previousBlockStart = stream.firstRegularField
        previousBlockChanges = interner.changes
    }

    func data(_ streamID: Int32, _ bytes: UnsafePointer<UInt8>, _ length: Int) {
        consume(streamID, length)
        streams.withStream(streamID) { stream in
            let room = max(0, settings.maxStoredBodyBytes - stream.body.count)
            if room > 0 { stream.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: min(room, length))) }
            stream.bodyLength += length
        }
    }

    /// The request's HEADERS arrived without END_STREAM: let the handler act early if it asked to.
    func headersComplete(_ streamID: Int32) {
        // Not retained for the usual case: no handler runs.
        let ask = streams.withStream(streamID) { stream -> Bool in
            if !stream.headerBlockDone { finishHeaderBlock(stream) }
            return decideOnHeaders && !stream.dispatched && !stream.headerListTooLarge
        }
        guard ask == true, let stream = stream(streamID) else { return }
        let request = HTTP2Request(streamID: streamID, method: stream.method, path: stream.path,
                                   authority: stream.authority, headers: stream.headers, body: [], bodyLength: 0)
        guard let action = handler.headersReceived(request, on: self) else { return }
        stream.dispatched = true
        requestCount += 1
        carryOut(action, on: streamID, stream: stream)
    }

    /// The request on `streamID` is complete (END_STREAM): hand it to the application.
    func requestComplete(_ streamID: Int32) {
        // The stream is not retained for the call (a retain and a release per request). The
        // table keeps it open throughout: it loses a stream only in nghttp2's callbacks, which
        // do not run while this one does, and in `close`, which waits for nghttp2 to return
        // (`insideSession`) when the handler asks for it.
        streams.withStream(streamID) { requestComplete(streamID, stream: $0) }
    }

    @inline(__always)
    private func requestComplete(_ streamID: Int32, stream: StreamState) {
        guard !stream.dispatched else { return }
        if !stream.headerBlockDone { finishHeaderBlock(stream) }
        stream.dispatched = true
        requestCount += 1
        if settings.idleTimeout != nil { lastActivity = HTTP2Connection.monotonicSeconds() }
        if stream.headerListTooLarge {
            // RFC 9113 section 10.5.1: 431 for a header list over what the server takes.
            submit(HTTP2Response(status: 431), on: streamID, stream: stream)
            return
        }
        // Moved out of the stream, not copied: the request then holds the only references.
        var request = HTTP2Request(streamID: streamID, method: take(&stream.method, ""), path: take(&stream.path, ""),
                                   authority: take(&stream.authority, nil), headers: take(&stream.headers, []),
                                   body: take(&stream.body, []), bodyLength: stream.bodyLength)
        let action = handler.handle(&request, on: self)
        // The body goes back to the stream, whose object is reused: its storage too, once the
        // application lets go of it. (The header list is let go of: usually it is the
        // connection's previous block, shared, and a new one is built in place of a differing one.)
        stream.body = take(&request.body, [])
        carryOut(action, on: streamID, stream: stream)
    }

    /// `value`, leaving `empty` in its place.
    @inline(__always)
    private func take<T>(_ value: inout T, _ empty: T) -> T {
        var taken = empty
        swap(&value, &taken)
        return taken
    }

    /// What `perform` does, minus the flush: `stream` is the open stream (nil when gone, and
    /// then a response is dropped).
    private func carryOut(_ action: consuming HTTP2Action, on streamID: Int32, stream: StreamState?) {
        switch action {
        case .respond(let response): if let stream { submit(response, on: streamID, stream: stream) }
        case .resetStream(let code): nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, code)
        case .noResponse: break
        case .goAway(let code, let last, let debug): goAway(errorCode: code, lastStreamID: last, debugData: debug)
        }
    }

    func streamClosed(_ streamID: Int32) {
        guard let stream = streams.remove(streamID) else { return }
        spares.give(stream)
    }

    /// Fills nghttp2's DATA frame buffer from the stream's response body.
    func readResponseBody(_ streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int,
                          flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = stream(streamID) else {
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        let count = min(length, stream.responseBody.count - stream.responseOffset)
        stream.responseBody.withUnsafeBufferPointer { body in
            buffer.update(from: body.baseAddress! + stream.responseOffset, count: count)
        }
        stream.responseOffset += count
        if stream.responseOffset == stream.responseBody.count {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        }
        return count
    }

    // MARK: Actions for the application (loop thread only)

    /// Carries out, later, what a handler decides for a stream it left open with `.noResponse`
    /// (e.g. once a delay is over), as if `handle` had returned it. A response for a stream that
    /// is gone is dropped; nothing is done once the connection is closed.
    public func perform(_ action: HTTP2Action, on streamID: Int32) {
        guard phase != .closed, session != nil else { return }
        carryOut(action, on: streamID, stream: stream(streamID))
        flush()
    }

    /// Sends GOAWAY (last-stream-id = the highest stream processed) with `debugData`, answers
    /// the streams already open, then closes, or after `drainTimeout` seconds at the latest.
    public func shutdownGracefully(errorCode: UInt32 = 0, debugData: [UInt8], drainTimeout: Double) {
        guard phase == .open || phase == .handshaking else { return }
        if phase == .handshaking || session == nil {
            close()
            return
        }
        phase = .draining
        let last = nghttp2_session_get_last_proc_stream_id(session)
        debugData.withUnsafeBufferPointer { data in
            _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode,
                                      data.baseAddress, data.count)
        }
        drainTimer = loop.schedule(after: drainTimeout) { [weak self] in self?.close() }
        handler.transportEvent(.shutdownGoAway(errorCode: errorCode, lastStreamID: last, debugData: debugData), on: self)
        flush()
    }

    /// Sends SETTINGS with a new MAX_CONCURRENT_STREAMS; nghttp2 then refuses streams over it
    /// (RST_STREAM REFUSED_STREAM) once the client acknowledges.
    public func setMaxConcurrentStreams(_ limit: UInt32) {
        guard phase == .open, let session else { return }
        announcedMaxConcurrentStreams = limit
        var entry = nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: limit)
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1)
        flush()
    }

    /// Sends GOAWAY with `errorCode`, `lastStreamID` (nil: the highest stream processed) and
    /// `debugData` (APNs puts `{"reason":...}` there), then closes after `closeAfter` seconds
    /// (0: as soon as the frame is written; nil: never, the socket stays open and new streams
    /// are ignored, as cases C1 describes). Streams up to `lastStreamID` are still answered.
    public func goAway(errorCode: UInt32, lastStreamID: Int32? = nil, debugData: [UInt8], closeAfter: Double? = 0) {
        guard phase == .open || phase == .draining, let session else { return }
        // The socket stays for the whole `closeAfter` (or for good), even once no stream is left.
        keepOpenAfterGoAway = closeAfter == nil || closeAfter! > 0
        let last = lastStreamID ?? nghttp2_session_get_last_proc_stream_id(session)
        debugData.withUnsafeBufferPointer { data in
            _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode,
                                      data.baseAddress, data.count)
        }
        phase = .draining
        drainTimer?.cancel()
        if let closeAfter {
            drainTimer = loop.schedule(after: closeAfter) { [weak self] in self?.close() }
        }
        flush()
    }

    /// Closes the connection (TCP RST when `reset`, else FIN) once everything queued so far,
    /// such as a response just submitted, has been written.
    public func closeAfterWriting(reset: Bool) {
        guard phase != .closed else { return }
        closeWhenWritten = reset
        flush()
    }

    /// Monotonic seconds, for ages and timeouts.
    public static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// The number of streams open now.
    public var openStreamCount: Int { streams.count }
    /// True until GOAWAY, close or reset: new streams are served and SETTINGS can change.
    public var isOpen: Bool { phase == .open }
    /// True once the socket is closed.
    public var isClosed: Bool { phase == .closed }
    /// True while `goAway` would send a frame: the HTTP/2 session runs and the socket is open.
    public var canSendGoAway: Bool { (phase == .open || phase == .draining) && session != nil }
    /// The highest stream id nghttp2 has processed: the last-stream-id a GOAWAY sent now carries
    /// by default (0 before the session starts).
    public var lastProcessedStreamID: Int32 { session.map { nghttp2_session_get_last_proc_stream_id($0) } ?? 0 }

    private func submit(_ response: HTTP2Response, on streamID: Int32, stream: StreamState) {
        // Usually both are empty (a 200 has no body): nothing to retain or release then.
        if !response.body.isEmpty || !stream.responseBody.isEmpty { stream.responseBody = response.body }
        stream.responseOffset = 0
        // Names and values are copied into one buffer, and the name/value pairs into another, both
        // on the stack: nghttp2 copies them during the call. The strings are read in place (no
        // copy, no reference counting) and the status is written as digits, not made a String.
        let status = response.status
        let sign = status < 0 ? 1 : 0  // a negative status is sent as written, with its minus sign
        let statusLength = sign + HTTP2Connection.decimalLength(of: status.magnitude)
        var total = 7 + statusLength
        for index in response.headers.indices {
            total += response.headers[index].name.utf8.count + response.headers[index].value.utf8.count
        }
        let uuids = response.uuidHeaders
        for index in 0..<uuids.count { total += uuids[index].name.withUTF8Buffer { $0.count } + UUIDHeaderField.valueLength }
        let count = response.headers.count + uuids.count + 1
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: total) { storage in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: count) { nva in
                let base = storage.baseAddress!
                let pairs = nva.baseAddress!
                var offset = HTTP2Connection.copy(":status", to: base)
                if sign == 1 { base[offset] = UInt8(ascii: "-") }
                var rest = status.magnitude
                for index in stride(from: offset + statusLength - 1, through: offset + sign, by: -1) {
                    base[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                offset += statusLength
                pairs.initialize(to: nghttp2_nv(name: base, value: base + 7, namelen: 7, valuelen: offset - 7,
                                                flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                for index in response.headers.indices {
                    let name = offset
                    offset += HTTP2Connection.copy(response.headers[index].name, to: base + offset)
                    let value = offset
                    offset += HTTP2Connection.copy(response.headers[index].value, to: base + offset)
                    (pairs + index + 1).initialize(to: nghttp2_nv(
                        name: base + name, value: base + value, namelen: value - name, valuelen: offset - value,
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                }
                for index in 0..<uuids.count {
                    let field = uuids[index]
                    let name = offset
                    offset += field.name.withUTF8Buffer { name in
                        (base + offset).initialize(from: name.baseAddress!, count: name.count)
                        return name.count
                    }
                    let value = offset
                    UUIDHeaderField.spell(high: field.high, low: field.low, uppercase: field.uppercase, into: base + offset)
                    offset += UUIDHeaderField.valueLength
                    (pairs + response.headers.count + index + 1).initialize(to: nghttp2_nv(
                        name: base + name, value: base + value, namelen: value - name, valuelen: offset - value,
                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                }
                if response.body.isEmpty {
                    nghttp2_submit_response(session, streamID, pairs, count, nil)
                } else {
                    var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil),
                                                         read_callback: HTTP2Callbacks.readResponseBody)
                    nghttp2_submit_response(session, streamID, pairs, count, &provider)
                }
            }
        }
    }

    /// Copies `text`'s UTF-8 to `destination`, which has room for it; returns how many bytes.
    @inline(__always)
    private static func copy(_ text: String, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        // UTF8View copies a native string's bytes with one memcpy.
        let count = text.utf8.count
        _ = UnsafeMutableBufferPointer(start: destination, count: count).initialize(from: text.utf8)
        return count
    }

    /// How many decimal digits `value` has.
    @inline(__always)
    static func decimalLength(of value: UInt) -> Int {
        var length = 1
        var rest = value / 10
        while rest > 0 {
            length += 1
            rest /= 10
        }
        return length
    }

    /// Closes the socket now (FIN, or TCP RST when `reset`), and frees the session.
    public func close(reset: Bool = false) {
        guard phase != .closed else { return }
        if insideSession {
            closeRequested = reset
            return
        }
        phase = .closed
        drainTimer?.cancel()
        drainTimer = nil
        handshakeTimer?.cancel()
        handshakeTimer = nil
        idleTimer?.cancel()
        idleTimer = nil
        windowStall?.cancel()
        windowStall = nil
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
        if let session { nghttp2_session_del(session) }
        session = nil
        streams.removeAll()
        spares.removeAll()
        interner.removeAll()
        if opened { handler.connectionClosed(self) }
        onClose(self)
    }
}
