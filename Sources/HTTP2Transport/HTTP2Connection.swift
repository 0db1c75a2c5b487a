import CLibevent
import CNGHTTP2
import Glibc
import SystemSupport

/// One accepted connection: it ties a `SocketStream` (socket, optional TLS), an `HTTP2Session`
/// (nghttp2), a `RequestAssembler` (requests from header fields and DATA) and the
/// `ResponseEncoder` together, keeps the open streams and the timers, and moves its
/// `ConnectionLifecycle` on, carrying out what each transition says.
///
/// Confined to its worker's loop thread: every method must be called there (use
/// `loop.execute` from elsewhere). Bytes flow socket → (TLS) → `nghttp2_session_mem_recv`;
/// answers flow `nghttp2_session_mem_send` → one write buffer → (TLS) → socket.
///
/// The parts are final classes held in `let`s for the connection's whole life (a load to reach
/// one, no reference counting) and their per-request methods are `@inline(__always)`, so the
/// path of a request is the same straight-line code as when all of it sat in this class.
public final class HTTP2Connection: @unchecked Sendable {
    /// Identity and addressing, fixed at accept time (ALPN filled after the handshake).
    public private(set) var info: AcceptedConnection
    /// The loop this connection lives on.
    public let loop: EventLoop
    /// Free for the application: per-connection state it wants to keep (touch on the loop thread).
    public var context: AnyObject? {
        get { storedContext }
        set { storedContext = newValue }
    }
    /// Behind accessors because another module ignores `@exclusivity(unchecked)` and checks each
    /// access to a stored property (the handler reads it per request; bench/README.md, "Profile
    /// and fix").
    @exclusivity(unchecked) private var storedContext: AnyObject?

    /// Where the connection is in its life; changed only through `lifecycle.handle`.
    @exclusivity(unchecked) private(set) var lifecycle = ConnectionLifecycle.accepted
    /// The socket, TLS and the write buffer.
    private let socket: SocketStream
    /// The nghttp2 session.
    private let session = HTTP2Session()
    /// Header fields and DATA → `HTTP2Request`.
    private let assembler: RequestAssembler
    // Confined to the loop thread and never accessed overlappingly: the runtime exclusivity
    // check (several per request; bench/README.md, "Profile and fix") buys nothing here.
    /// The open streams.
    private let streams = StreamTable()
    /// Objects of closed streams kept for new ones.
    @exclusivity(unchecked) private var spares = SpareStreams()
    /// The listener's SETTINGS and limits, as given before `HTTP2RequestHandler.settings(for:proposed:)`
    /// could change what is announced.
    public let settings: HTTP2Settings
    private let handler: HTTP2RequestHandler
    /// `handler.answerDurability`, read once: nil costs `flush` one load and a branch.
    private let durability: (any AnswerDurability)?
    private let alpnRequired: Bool
    private let onClose: (HTTP2Connection) -> Void
    /// Closes the connection after a GOAWAY's `closeAfter`, or a graceful shutdown's drain timeout.
    private var drainTimer: LoopTimer?
    /// A drain's `closing`: told just before the drain itself closes the connection.
    private var drainClosing: (() -> Void)?
    /// Closes a TLS connection whose handshake does not finish in time.
    private var handshakeTimer: LoopTimer?
    /// Ends the connection after `settings.idleTimeout` without a completed request.
    private var idleTimer: LoopTimer?
    /// While set, received DATA is not acknowledged (see `withholdWindowUpdates`).
    private var windowStall: LoopTimer?
    /// When the last request completed (monotonic seconds).
    private var lastActivity = 0.0
    /// When true, the handler is asked about each request as soon as its HEADERS arrive
    /// (`HTTP2RequestHandler.headersReceived`). Set on the loop thread.
    @exclusivity(unchecked) public var decideOnHeaders = false
    /// When the connection was accepted, monotonic seconds (`CLOCK_MONOTONIC`).
    public let acceptedAt: Double = HTTP2Connection.monotonicSeconds()
    /// The MAX_CONCURRENT_STREAMS this side announced last.
    public private(set) var announcedMaxConcurrentStreams: UInt32 = 0
    /// Requests completed on this connection.
    @exclusivity(unchecked) public private(set) var requestCount: UInt64 = 0
    /// The lowest last-stream-id of the GOAWAYs sent (`Int32.max` before the first): a stream
    /// above it that ends unanswered ends `.aboveLastStreamID` (one whose response HEADERS was
    /// already written keeps its answer).
    @exclusivity(unchecked) private var goAwayLastStreamID = Int32.max
    /// Requests on streams above this id are ignored (never handed to the handler, left open):
    /// the last-stream-id of a GOAWAY written by `goAway` itself on a connection kept open after
    /// it (`Int32.max` otherwise; nghttp2 ignores them itself after a GOAWAY it sent).
    @exclusivity(unchecked) private var ignoredAbove = Int32.max
    /// True when the peer closed the connection (or the socket failed): streams still open at
    /// the close end `.connectionClosedByPeer`.
    @exclusivity(unchecked) private var closedByPeer = false
    /// True once `blackhole()` ran: nothing is written any more, what arrives is dropped.
    @exclusivity(unchecked) public private(set) var isBlackholed = false
    /// Tagged streams whose response HEADERS was serialized but may not be written yet.
    @exclusivity(unchecked) private var unwritten = UnwrittenAnswers()
    /// Bytes appended to the write buffer since the connection began (`UnwrittenAnswers`' positions).
    @exclusivity(unchecked) private var appendedTotal: UInt64 = 0
    /// How many of the bytes appended had been written when `blackhole()` dropped the rest.
    private var writtenBeforeBlackhole: UInt64?

    init(
        fd: Int32, info: AcceptedConnection, loop: EventLoop, tls: TLSContext?, settings: HTTP2Settings,
        handler: HTTP2RequestHandler, onClose: @escaping (HTTP2Connection) -> Void
    ) {
        self.info = info
        self.loop = loop
        self.settings = settings
        self.handler = handler
        durability = handler.answerDurability
        self.onClose = onClose
        self.alpnRequired = tls?.alpn == .required
        socket = SocketStream(fd: fd, tls: tls)
        assembler = RequestAssembler(
            maxHeaderListSize: Int(settings.maxHeaderListSize),
            maxStoredBodyBytes: settings.maxStoredBodyBytes)
    }

    /// Registers the socket events and, for cleartext, starts HTTP/2 at once.
    func start() {
        apply(lifecycle.handle(.start(tls: socket.isTLS)))
    }

    /// Reads and drops whatever the client sends and never answers; closes when the client
    /// does, so a silent connection does not outlive its client.
    func startSilently() {
        apply(lifecycle.handle(.startSilently))
    }

    /// Does what a lifecycle transition said. (`readAndProcess`, `flush`, `goAway` and
    /// `shutdownGracefully` take the actions only they get themselves.)
    private func apply(_ action: ConnectionLifecycle.Action) {
        switch action {
        case .none, .keepReading:
            break
        case .serveCleartext:
            listen()
            beginSession()
            flush()
        case .beginHandshake:
            listen()
            handshakeTimer = loop.schedule(after: settings.handshakeTimeout) { [weak self] in
                guard let self else { return }
                self.apply(self.lifecycle.handle(.handshakeTimedOut))
            }
        case .listenSilently:
            let me = Unmanaged.passUnretained(self).toOpaque()
            socket.listen(
                on: loop, owner: me,
                onReadable: { _, _, arg in
                    Unmanaged<HTTP2Connection>.fromOpaque(arg!).takeUnretainedValue().discardInput()
                }, onWritable: nil)
        case .beginSession:
            handshakeTimer?.cancel()
            handshakeTimer = nil
            beginSession()
            readAndProcess()  // the client's preface may already sit in OpenSSL's buffer
        case .sendGoAway, .sendShutdownGoAway:
            preconditionFailure("sent by goAway and shutdownGracefully themselves")
        case .flush, .flushAndStopReading:
            flush()
        case .flushThenClose:
            flush()
            close()
        case .close(let reset, let notifyHandler):
            tearDown(reset: reset, notifyHandler: notifyHandler)
        }
    }

    private func listen() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        socket.listen(
            on: loop, owner: me,
            onReadable: { _, _, arg in
                Unmanaged<HTTP2Connection>.fromOpaque(arg!).takeUnretainedValue().onReadable()
            },
            onWritable: { _, _, arg in
                Unmanaged<HTTP2Connection>.fromOpaque(arg!).takeUnretainedValue().onWritable()
            })
    }

    private func discardInput() {
        if !socket.discard(using: loop.readBuffer, count: EventLoop.readBufferSize) {
            closedByPeer = true
            close()
        }
    }

    // MARK: Socket events

    private func onReadable() {
        if isBlackholed {
            discardInput()
            return
        }
        switch lifecycle {
        case .handshaking: continueHandshake()
        case .open, .goingAway, .closingWhenWritten, .closingWhenSessionReturns: readAndProcess()
        case .accepted, .silent, .closed: return
        }
    }

    private func onWritable() {
        let readWaited = socket.writable()
        if isBlackholed { return }
        switch lifecycle {
        case .handshaking: continueHandshake()
        case .open, .goingAway, .closingWhenWritten, .closingWhenSessionReturns:
            if readWaited {
                readAndProcess()
            } else {
                flush()
            }
        case .accepted, .silent, .closed: return
        }
    }

    private func continueHandshake() {
        switch socket.handshake() {
        case .inProgress:
            return
        case .failed:
            close()
        case .done:
            if let alpn = socket.negotiatedProtocol() {
                info.alpn = alpn
            } else if alpnRequired {
                close()
                return
            }
            info.clientCertificate = socket.peerCertificate()
            apply(lifecycle.handle(.handshakeFinished))
        }
    }

    private func readAndProcess() {
        let buffer = loop.readBuffer
        let size = EventLoop.readBufferSize
        for _ in 0..<32 {
            guard !lifecycle.isClosed, !isBlackholed else { return }
            let count: Int
            switch socket.read(into: buffer, count: size) {
            case .bytes(let read): count = read
            case .wouldBlock:
                flush()
                return
            case .blockedOnWrite:
                return
            case .failed:
                closedByPeer = true
                close()
                return
            }
            let consumed = session.receive(buffer, count: count)
            switch lifecycle.handle(.received(failed: consumed < 0)) {
            case .keepReading:
                break
            case .flushAndStopReading:  // answer what was decided, then close: read no further
                flush()
                return
            case .flushThenClose:
                // nghttp2 queued a GOAWAY for protocol errors: send it, then close.
                flush()
                close()
                return
            case let action:
                apply(action)
                return
            }
            if !socket.isTLS && count < size { break }
        }
        flush()
        // Bounded for fairness; TLS may still hold decrypted bytes the socket event won't signal.
        if !lifecycle.isClosed && socket.hasBufferedInput {
            socket.signalReadable()
        }
    }

    /// Moves everything nghttp2 wants to send to the socket, closing when the session is done.
    /// Deferred while nghttp2 is running our callbacks: it must not be re-entered.
    func flush() {
        guard lifecycle.sessionRuns, !session.isReceiving, !isBlackholed else { return }
        // Before anything nghttp2 serialized leaves: an answer must not precede its record's sync.
        if let durability { durability.awaitDurable() }
        while true {
            var data: UnsafePointer<UInt8>?
            let count = session.nextOutput(&data)
            if count < 0 {
                close()
                return
            }
            if count == 0 { break }
            guard let data else { continue }
            socket.append(data, count: count)
            appendedTotal &+= UInt64(count)
            if !unwritten.isEmpty { unwritten.appended(through: appendedTotal) }
            if socket.pendingBytes >= 64 * 1024 && !writeOut() { return }
        }
        guard writeOut() else { return }
        unwritten.allWritten()
        let draining = lifecycle == .goingAway(.closeWhenIdle)
        // Only `.close` follows a write.
        if case .close(let reset, let notifyHandler) = lifecycle.handle(
            .written(
                sessionDone: session.isDone,
                streamsOpen: !streams.isEmpty))
        {
            if draining { tellDrainClosing() }
            tearDown(reset: reset, notifyHandler: notifyHandler)
        }
    }

    /// Writes the buffer; false when the socket would block (write event armed) or failed (closed).
    @inline(__always)
    private func writeOut() -> Bool {
        switch socket.writeOut() {
        case .written: return true
        case .blocked: return false
        case .failed:
            closedByPeer = true
            close()
            return false
        }
    }

    // MARK: HTTP/2 session

    private func beginSession() {
        session.start(user: Unmanaged.passUnretained(self).toOpaque())
        let settings = handler.settings(for: self, proposed: self.settings)
        announcedMaxConcurrentStreams = settings.maxConcurrentStreams
        session.submitSettings(settings)
        lastActivity = HTTP2Connection.monotonicSeconds()
        if let idle = settings.idleTimeout { armIdleTimer(after: idle) }
        handler.connectionOpened(self)
    }

    /// Sends no WINDOW_UPDATE for `seconds`: received DATA is acknowledged only afterwards, so
    /// a sender's flow-control window runs dry (a stall as the client sees it). `ended` is
    /// called with the bytes acknowledged when the stall ends (not when a new stall replaces
    /// it or the connection closes first). Does nothing unless `isOpen`.
    public func withholdWindowUpdates(for seconds: Double, ended: ((_ withheldBytes: Int) -> Void)? = nil) {
        guard lifecycle.isOpen else { return }
        windowStall?.cancel()
        session.withholdAcknowledgements()
        windowStall = loop.schedule(after: seconds) { [weak self] in
            guard let self, self.session.isStarted else { return }
            self.windowStall = nil
            let withheldBytes = self.session.acknowledgeWithheld()
            self.flush()
            ended?(withheldBytes)
        }
    }

    /// One timer per idle period, not per request: when it fires early (requests came since it
    /// was set), it re-arms for the rest.
    private func armIdleTimer(after seconds: Double) {
        idleTimer = loop.schedule(after: seconds) { [weak self] in
            guard let self, self.lifecycle.isOpen, let idle = self.settings.idleTimeout else { return }
            let quiet = HTTP2Connection.monotonicSeconds() - self.lastActivity
            if quiet + 0.001 < idle {
                self.armIdleTimer(after: idle - quiet)
            } else if self.settings.idleBlackhole {
                self.handler.transportEvent(.idleBlackhole, on: self)
                self.blackhole()
            } else if let debugData = self.settings.idleGoAwayDebugData {
                // Told first, so the record comes before the close the GOAWAY may lead to at once.
                self.handler.transportEvent(
                    .idleGoAway(lastStreamID: self.lastProcessedStreamID, debugData: debugData), on: self)
                self.goAway(errorCode: 0, debugData: debugData)
            } else {
                self.handler.transportEvent(.idleReset, on: self)
                self.close(reset: true)
            }
        }
    }

    // MARK: nghttp2 callbacks (HTTP2Callbacks)

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

    func header(
        _ streamID: Int32, name: UnsafePointer<UInt8>, nameLength: Int, value: UnsafePointer<UInt8>, valueLength: Int
    ) {
        streams.withStream(streamID) {
            assembler.header(on: $0, name: name, nameLength: nameLength, value: value, valueLength: valueLength)
        }
    }

    func data(_ streamID: Int32, _ bytes: UnsafePointer<UInt8>, _ length: Int) {
        session.consume(streamID, length)
        streams.withStream(streamID) { assembler.body(on: $0, bytes, length) }
    }

    /// The request's HEADERS arrived without END_STREAM: let the handler act early if it asked to.
    func headersComplete(_ streamID: Int32) {
        // Not retained for the usual case: no handler runs.
        let ask = streams.withStream(streamID) { stream -> Bool in
            assembler.finishHeaderBlock(stream)
            return decideOnHeaders && !stream.dispatched && !stream.headerListTooLarge
        }
        guard ask == true, streamID <= ignoredAbove, let stream = stream(streamID) else { return }
        // Once a close or a blackhole is decided, the request waits for its END_STREAM (never
        // served then, `requestComplete`).
        guard !lifecycle.closeDecided, !isBlackholed else { return }
        var request = assembler.headersRequest(on: streamID, from: stream)
        guard let action = handler.headersReceived(&request, on: self) else { return }
        stream.tag = request.tag
        stream.dispatched = true
        requestCount += 1
        carryOut(action, on: streamID, stream: stream)
    }

    /// nghttp2 serialized the response HEADERS of `streamID` for the socket: the stream is
    /// answered from now on (a delayed answer's `whenAnswered` runs), and until the bytes are
    /// written a close that drops them makes it unanswered again (`UnwrittenAnswers`).
    @inline(__always)
    func responseHeadersSent(_ streamID: Int32) {
        streams.withStream(streamID) { stream in
            stream.answered = true
            guard stream.tag != 0 else { return }
            unwritten.serialized(tag: stream.tag, streamID: streamID)
            if let onAnswered = stream.onAnswered {
                stream.onAnswered = nil
                onAnswered()
            }
        }
    }

    /// The request on `streamID` is complete (END_STREAM): hand it to the application.
    func requestComplete(_ streamID: Int32) {
        // The stream is not retained for the call (a retain and a release per request). The
        // table keeps it open throughout: it loses a stream only in nghttp2's callbacks, which
        // do not run while this one does, and in `close`, which waits for nghttp2 to return
        // (`session.isReceiving`) when the handler asks for it.
        streams.withStream(streamID) { requestComplete(streamID, stream: $0) }
    }

    @inline(__always)
    private func requestComplete(_ streamID: Int32, stream: StreamState) {
        guard !stream.dispatched else { return }
        assembler.finishHeaderBlock(stream)
        stream.dispatched = true
        guard streamID <= ignoredAbove else { return }
        requestCount += 1
        if settings.idleTimeout != nil { lastActivity = HTTP2Connection.monotonicSeconds() }
        if stream.headerListTooLarge {
            // RFC 9113 section 10.5.1: 431 for a header list over what the server takes.
            submit(HTTP2Response(status: 431), on: streamID, stream: stream)
            return
        }
        var request = assembler.takeRequest(on: streamID, from: stream)
        if lifecycle.closeDecided || isBlackholed {
            // The rest of a batch after a close, reset or blackhole was decided: not served.
            notServed(&request, stream: stream)
            return
        }
        let action = handler.handle(&request, on: self)
        stream.tag = request.tag
        assembler.recycleBody(of: &request, into: stream)
        carryOut(action, on: streamID, stream: stream)
    }

    /// A request completed after the connection's end was decided: the handler only hears of it
    /// (`requestNotServed`), nothing is answered; tagged, it ends unanswered with the connection.
    @inline(never)
    private func notServed(_ request: inout HTTP2Request, stream: StreamState) {
        handler.requestNotServed(&request, on: self)
        stream.tag = request.tag
        assembler.recycleBody(of: &request, into: stream)
    }

    /// What `perform` does, minus the flush: `stream` is the open stream (nil when gone, and
    /// then a response is dropped).
    private func carryOut(_ action: consuming HTTP2Action, on streamID: Int32, stream: StreamState?) {
        switch action {
        case .respond(let response): if let stream { submit(response, on: streamID, stream: stream) }
        case .resetStream(let code):
            stream?.resetBy = .server
            session.submitResetStream(streamID, errorCode: code)
        case .noResponse: break
        case .goAway(let code, let last, let debug): goAway(errorCode: code, lastStreamID: last, debugData: debug)
        }
    }

    @inline(__always)
    func streamClosed(_ streamID: Int32) {
        guard let stream = streams.remove(streamID) else { return }
        // A stream whose HEADERS went out keeps its answer, also above a later GOAWAY's line.
        if stream.tag != 0 && !stream.answered {
            reportUnanswered(stream, connectionEnd: nil)
        }
        spares.give(stream)
    }

    /// The WINDOW_UPDATE and PRIORITY frames the client may still send (`InboundFrameBudget`).
    var frameBudget = InboundFrameBudget()
    /// Set once the budget ran out and the session was ended (one GOAWAY).
    private var floodEnded = false

    /// The peer sent a WINDOW_UPDATE or PRIORITY frame: past its budget, GOAWAY
    /// ENHANCE_YOUR_CALM, and nghttp2 reads nothing more (the connection closes once it is written).
    func idleFrameReceived() {
        guard !frameBudget.frameReceived(), !floodEnded else { return }
        floodEnded = true
        session.terminate(errorCode: UInt32(NGHTTP2_ENHANCE_YOUR_CALM.rawValue))
    }

    /// The peer sent RST_STREAM on `streamID` (before nghttp2 closes it).
    func resetReceived(_ streamID: Int32) {
        streams.withStream(streamID) { if $0.resetBy == .none { $0.resetBy = .peer } }
    }

    /// Tells the handler that the tagged `stream` ended without response HEADERS written, and why:
    /// a RST_STREAM by either side, else its id above a GOAWAY's last-stream-id, else
    /// `connectionEnd` (nil: nghttp2 closed it on a stream error, a reset by this side).
    @inline(never)
    private func reportUnanswered(_ stream: StreamState, connectionEnd: HTTP2StreamEnd?) {
        let end: HTTP2StreamEnd
        switch stream.resetBy {
        case .peer: end = .resetByPeer
        case .server: end = .resetByServer
        case .none: end = stream.id > goAwayLastStreamID ? .aboveLastStreamID : (connectionEnd ?? .resetByServer)
        }
        let tag = stream.tag
        stream.tag = 0
        handler.streamEndedUnanswered(tag: tag, streamID: stream.id, end: end, on: self)
    }

    /// Fills nghttp2's DATA frame buffer from the stream's response body.
    func readResponseBody(
        _ streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int,
        flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
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
    /// is gone is dropped; nothing is done before the session starts or once the connection is closed.
    /// `whenAnswered` is called once, on the loop thread, if the response's HEADERS is serialized
    /// for the socket (never when it is dropped, or for another action); should the bytes then
    /// be lost to a close, the stream is reported unanswered as usual.
    public func perform(_ action: HTTP2Action, on streamID: Int32, whenAnswered: (() -> Void)? = nil) {
        guard lifecycle.sessionRuns, !isBlackholed else { return }
        let stream = stream(streamID)
        if let whenAnswered, case .respond = action, let stream, !stream.answered { stream.onAnswered = whenAnswered }
        carryOut(action, on: streamID, stream: stream)
        flush()
    }

    /// Sends GOAWAY (last-stream-id = the highest stream processed) with `errorCode` and
    /// `debugData`, answers the streams already open, then closes, or after `drainTimeout`
    /// seconds at the latest. Before the session starts (handshake, admission delay, silent),
    /// closes at once; after a GOAWAY, does nothing.
    public func shutdownGracefully(errorCode: UInt32 = 0, debugData: [UInt8], drainTimeout: Double) {
        drain(errorCode: errorCode, debugData: debugData, timeout: drainTimeout) { last in
            handler.transportEvent(
                .shutdownGoAway(errorCode: errorCode, lastStreamID: last, debugData: debugData), on: self)
        }
    }

    /// Drains the connection: GOAWAY (last-stream-id = the highest stream processed) with
    /// `errorCode` and `debugData`, the streams already open answered, then closed as soon as
    /// the last is, or after `timeout` seconds at the latest. `sent` is called with the
    /// last-stream-id just before the frame is flushed; `closing`, once, just before the drain
    /// itself closes the socket (FIN: the last stream answered, or the timeout), not when
    /// something else closes it first (the peer, a close or reset asked for). Before the session
    /// starts, closes at once; after a GOAWAY or a close, does nothing (neither is called).
    public func drain(
        errorCode: UInt32 = 0, debugData: [UInt8], timeout: Double, sent: (_ lastStreamID: Int32) -> Void = { _ in },
        closing: (() -> Void)? = nil
    ) {
        switch lifecycle.handle(.shutdown(drainTimeout: timeout)) {
        case .sendShutdownGoAway(let timeout):
            let last = session.lastProcessedStreamID
            // Streams above it are never answered: they end unanswered (`above-last-stream-id`).
            goAwayLastStreamID = min(goAwayLastStreamID, last)
            session.submitGoAway(errorCode: errorCode, lastStreamID: last, debugData: debugData)
            drainClosing = closing
            drainTimer?.cancel()
            drainTimer = loop.schedule(after: timeout) { [weak self] in
                guard let self, !self.lifecycle.isClosed else { return }
                self.tellDrainClosing()
                self.close()
            }
            sent(last)
            flush()
        case let action:
            apply(action)
        }
    }

    /// Sends SETTINGS with a new MAX_CONCURRENT_STREAMS; nghttp2 then refuses streams over it
    /// (RST_STREAM REFUSED_STREAM) once the client acknowledges. Does nothing unless `isOpen`.
    public func setMaxConcurrentStreams(_ limit: UInt32) {
        guard lifecycle.isOpen else { return }
        announcedMaxConcurrentStreams = limit
        session.submitMaxConcurrentStreams(limit)
        flush()
    }

    /// Sends GOAWAY with `errorCode`, `lastStreamID` (nil: the highest stream processed) and
    /// `debugData` (APNs puts `{"reason":...}` there), then closes after `closeAfter` seconds
    /// (0: as soon as the frame is written; nil: never, the socket stays open and new streams
    /// are ignored, as docs/field-cases.md C1 describes). Streams up to `lastStreamID` are still answered.
    /// Does nothing unless `canSendGoAway`.
    public func goAway(errorCode: UInt32, lastStreamID: Int32? = nil, debugData: [UInt8], closeAfter: Double? = 0) {
        guard case .sendGoAway = lifecycle.handle(.goAway(closeAfter: closeAfter)) else { return }
        let last = goAwayLastStreamID(for: lastStreamID)
        goAwayLastStreamID = last
        if closeAfter.map({ $0 > 0 }) ?? true {
            // Kept open: nghttp2 must not learn of this GOAWAY. Once it has sent one and no stream
            // is open it reads nothing more, so PING would go unacknowledged, which RFC 9113
            // section 6.7 forbids (an ACK submitted by hand, with nghttp2's automatic one off, is
            // dropped too: it packs no PING once the session is closing). So this one frame is
            // written here, and new streams are ignored here.
            ignoredAbove = min(ignoredAbove, last)
            appendGoAwayFrame(errorCode: errorCode, lastStreamID: last, debugData: debugData)
        } else {
            session.submitGoAway(errorCode: errorCode, lastStreamID: last, debugData: debugData)
        }
        drainTimer?.cancel()
        if let closeAfter {
            drainTimer = loop.schedule(after: closeAfter) { [weak self] in self?.close() }
        }
        flush()
    }

    /// Writes a GOAWAY frame (RFC 9113 section 6.8: length, type 7, no flags, stream 0, then
    /// last-stream-id, error code and debug data) after what is queued for the socket. What
    /// nghttp2 already queued is written before it where possible (not from inside its callbacks).
    private func appendGoAwayFrame(errorCode: UInt32, lastStreamID: Int32, debugData: [UInt8]) {
        flush()
        let length = 8 + debugData.count
        var frame: [UInt8] = [
            UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8),
            UInt8(truncatingIfNeeded: length), 7, 0, 0, 0, 0, 0,
        ]
        let last = UInt32(bitPattern: lastStreamID) & 0x7fff_ffff
        for shift in stride(from: 24, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: last >> shift)) }
        for shift in stride(from: 24, through: 0, by: -8) {
            frame.append(UInt8(truncatingIfNeeded: errorCode >> shift))
        }
        frame.append(contentsOf: debugData)
        frame.withUnsafeBufferPointer { socket.append($0.baseAddress!, count: $0.count) }
    }

    /// Closes the connection (TCP RST when `reset`, else FIN) once everything queued so far,
    /// such as a response just submitted, has been written; at once before the session starts.
    public func closeAfterWriting(reset: Bool) {
        apply(lifecycle.handle(.closeAfterWriting(reset: reset)))
    }

    /// From now on answers nothing at all, the socket staying open: no frame is written (no
    /// HEADERS, DATA, PING ACK, SETTINGS ACK, WINDOW_UPDATE, not even what was queued and not
    /// yet written), what arrives is read and dropped unprocessed, timers that would end the
    /// connection (a GOAWAY's close, the idle timeout) are cancelled. It ends when the peer
    /// closes, by `close`, or at a graceful shutdown's drain timeout. Streams left open end
    /// unanswered at the close. What a sender's PING timeout and half-open detection are
    /// tested against (issue 13). Does nothing before the session starts or once closed.
    public func blackhole() {
        guard lifecycle.sessionRuns, !isBlackholed else { return }
        isBlackholed = true
        drainTimer?.cancel()
        drainTimer = nil
        idleTimer?.cancel()
        idleTimer = nil
        windowStall?.cancel()
        windowStall = nil
        // HEADERS still in the buffer are never written: their streams end unanswered at the close.
        writtenBeforeBlackhole = appendedTotal &- UInt64(socket.pendingBytes)
        socket.dropPendingOutput()
    }

    /// Monotonic seconds, for ages and timeouts.
    public static func monotonicSeconds() -> Double { MonotonicClock.seconds() }

    /// The number of streams open now.
    public var openStreamCount: Int { streams.count }
    /// True while the session runs, until GOAWAY, close or reset: new streams are served and
    /// SETTINGS can change (false before the session starts).
    public var isOpen: Bool { lifecycle.isOpen }
    /// True once the socket is closed.
    public var isClosed: Bool { lifecycle.isClosed }
    /// True while `goAway` would send a frame: the HTTP/2 session runs and the socket is open.
    public var canSendGoAway: Bool { lifecycle.sessionRuns }
    /// The last-stream-id of the GOAWAY this connection sent (the lowest, when several), nil
    /// before any: a later GOAWAY carries at most this one.
    public var sentGoAwayLastStreamID: Int32? { goAwayLastStreamID == .max ? nil : goAwayLastStreamID }
    /// The last-stream-id a GOAWAY asking for `requested` (nil: the highest stream processed)
    /// carries if sent now: never above an earlier GOAWAY's (RFC 9113 §6.8).
    public func goAwayLastStreamID(for requested: Int32?) -> Int32 {
        min(requested ?? session.lastProcessedStreamID, goAwayLastStreamID)
    }
    /// The highest stream id nghttp2 has processed: the last-stream-id a GOAWAY sent now carries
    /// by default (0 before the session starts).
    public var lastProcessedStreamID: Int32 { session.lastProcessedStreamID }

    /// Submits `response`: nghttp2 serializes its HEADERS at the next flush (the stream counts
    /// as answered then, `responseHeadersSent`), unless a close or a GOAWAY below its id comes first.
    private func submit(_ response: HTTP2Response, on streamID: Int32, stream: StreamState) {
        // Usually both are empty (a 200 has no body): nothing to retain or release then.
        if !response.body.isEmpty || !stream.responseBody.isEmpty { stream.responseBody = response.body }
        stream.responseOffset = 0
        // The closure captures neither `self` nor `response` (nor the session as a reference):
        // they cost copies of the response and a retain and release per response, the
        // connection's through the slow path (it has weak references; bench/README.md).
        // `unowned(unsafe)` still retained; the session lives as long as the connection.
        let hasBody = !response.body.isEmpty
        let session = Unmanaged.passUnretained(self.session)
        ResponseEncoder.withFields(of: response) { fields, count in
            session._withUnsafeGuaranteedRef {
                $0.submitResponse(on: streamID, fields: fields, count: count, hasBody: hasBody)
            }
        }
    }

    /// Closes the socket now (FIN, or TCP RST when `reset`), and frees the session; from inside
    /// an nghttp2 callback, as soon as nghttp2 returns.
    public func close(reset: Bool = false) {
        apply(lifecycle.handle(.close(reset: reset, whileReceiving: session.isReceiving)))
    }

    /// Calls the drain's `closing`, once.
    private func tellDrainClosing() {
        guard let closing = drainClosing else { return }
        drainClosing = nil
        closing()
    }

    /// The close itself, once the lifecycle is `.closed`.
    private func tearDown(reset: Bool, notifyHandler: Bool) {
        drainClosing = nil
        drainTimer?.cancel()
        drainTimer = nil
        handshakeTimer?.cancel()
        handshakeTimer = nil
        idleTimer?.cancel()
        idleTimer = nil
        windowStall?.cancel()
        windowStall = nil
        // A FIN comes after what was serialized: written now if the socket takes it (a TCP RST
        // drops it, and so does a blackhole or a peer that is gone).
        if !reset && !closedByPeer && !isBlackholed && socket.pendingBytes > 0 { _ = socket.writeOut() }
        let written = writtenBeforeBlackhole ?? (appendedTotal &- UInt64(socket.pendingBytes))
        socket.close(reset: reset)
        let end: HTTP2StreamEnd =
            reset ? .connectionReset : (closedByPeer ? .connectionClosedByPeer : .connectionClosed)
        if !unwritten.isEmpty {
            // HEADERS serialized but never written: the client got no status on those streams.
            for entry in unwritten.lost(writtenThrough: written) {
                handler.streamEndedUnanswered(tag: entry.tag, streamID: entry.streamID, end: end, on: self)
            }
        }
        if !streams.isEmpty {
            // Streams the close ends: those tagged and not answered are reported, before the close.
            streams.forEach { stream in
                if stream.tag != 0 && !stream.answered {
                    reportUnanswered(stream, connectionEnd: end)
                }
            }
        }
        session.delete()
        streams.removeAll()
        spares.removeAll()
        assembler.removeAll()
        if notifyHandler { handler.connectionClosed(self) }
        onClose(self)
    }
}
