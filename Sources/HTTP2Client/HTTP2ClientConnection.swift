import CNGHTTP2
import COpenSSL
import Glibc
import HTTPFields
import SystemSupport

/// One blocking HTTP/2 client connection: TCP, TLS with ALPN `h2` (or cleartext HTTP/2 with
/// prior knowledge for `http://`), and an nghttp2 client session driven by `poll()`.
///
/// Not thread-safe: use it from one thread at a time. `send` blocks until every request is
/// answered, reset, refused or timed out.
public final class HTTP2ClientConnection {
    /// Where the connection goes.
    public let endpoint: HTTP2Endpoint
    /// The ALPN protocol the server selected (`h2`); nil for cleartext.
    public let alpn: String?
    /// The TLS version, e.g. `TLSv1.3`; nil for cleartext.
    public let tlsVersion: String?
    /// Milliseconds from the start of `connect` to the server's SETTINGS (TCP + TLS + preface).
    public private(set) var connectTime: Double = 0
    /// The GOAWAY the server sent, if any; the connection then takes no new requests.
    public private(set) var goAway: HTTP2GoAway?
    /// The most streams that were open at once.
    public private(set) var peakOpenStreams = 0

    private let socket: ClientSocket
    private var session: OpaquePointer?
    private var streams: [Int32: ClientStream] = [:]
    private var results: [HTTP2ClientResult?] = []
    private var settingsReceived = false
    /// Set once the connection is unusable; later sends fail with it at once.
    private var failure: HTTP2ClientError?
    private var output: [UInt8] = []
    private var outputOffset = 0
    private static let readSize = 64 * 1024
    private let readBuffer = UnsafeMutableRawPointer.allocate(byteCount: readSize, alignment: 16)

    /// Connects to `url` (`https://host[:port]` or `http://host[:port]`; IPv6 in brackets) and
    /// waits for the server's HTTP/2 SETTINGS.
    /// - Parameters:
    ///   - tls: verification and client certificate options (ignored for `http://`).
    ///   - timeout: seconds allowed for each of connect, TLS handshake and SETTINGS.
    /// - Throws: `HTTP2ClientError`: refused, unresolvable, TLS verification or handshake
    ///   failure, ALPN other than h2, not HTTP/2, or GOAWAY straight away.
    public static func connect(
        url: String, tls: HTTP2ClientTLSOptions = HTTP2ClientTLSOptions(),
        timeout: Double = 10
    ) throws(HTTP2ClientError) -> HTTP2ClientConnection {
        try connect(to: HTTP2Endpoint(url: url), tls: tls, timeout: timeout)
    }

    /// Connects to `endpoint`; see `connect(url:tls:timeout:)`.
    public static func connect(
        to endpoint: HTTP2Endpoint, tls: HTTP2ClientTLSOptions = HTTP2ClientTLSOptions(),
        timeout: Double = 10
    ) throws(HTTP2ClientError) -> HTTP2ClientConnection {
        let start = MonotonicClock.nanoseconds()
        let fd = try TCPConnector.connect(
            host: endpoint.host, port: endpoint.port,
            deadline: MonotonicClock.deadline(after: timeout), timeout: timeout)
        let socket = ClientSocket(fd: fd)  // closes fd if anything below throws
        var alpn: String?
        var version: String?
        if endpoint.secure {
            let handshake = try ClientTLSHandshake.run(
                fd: fd, host: endpoint.host, options: tls,
                deadline: MonotonicClock.deadline(after: timeout), timeout: timeout)
            socket.adopt(ssl: handshake.ssl)
            alpn = handshake.alpn
            version = String(cString: SSL_get_version(handshake.ssl))
            guard alpn == "h2" else { throw .alpnNotH2(alpn) }
        }
        let connection = HTTP2ClientConnection(endpoint: endpoint, socket: socket, alpn: alpn, tlsVersion: version)
        try connection.startSession(timeout: timeout)
        connection.connectTime = MonotonicClock.milliseconds(since: start)
        return connection
    }

    private init(endpoint: HTTP2Endpoint, socket: ClientSocket, alpn: String?, tlsVersion: String?) {
        self.endpoint = endpoint
        self.socket = socket
        self.alpn = alpn
        self.tlsVersion = tlsVersion
    }

    deinit {
        close()
        readBuffer.deallocate()
    }

    /// Sends GOAWAY (best effort, without waiting) and closes the socket. Idempotent.
    public func close() {
        guard let session else { return }
        if failure == nil {
            nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
            try? writePending()
        }
        nghttp2_session_del(session)
        self.session = nil
        failure = failure ?? .connectionClosed
        socket.close()
    }

    // MARK: Sending requests

    /// Sends `requests`, keeping up to `concurrency` streams open at once (fewer when the
    /// server's SETTINGS_MAX_CONCURRENT_STREAMS is lower), and returns one result per request in
    /// the same order.
    ///
    /// - Parameter timeout: seconds without any byte from the server after which every request
    ///   still waiting fails with `.timedOut` and the connection becomes unusable.
    public func send(_ requests: [HTTP2ClientRequest], concurrency: Int = 1, timeout: Double = 30)
        -> [HTTP2ClientResult]
    {
        results = Array(repeating: nil, count: requests.count)
        let limit = max(1, concurrency)
        var next = 0
        do {
            try pump(timeout: timeout, waitingFor: "waiting for responses") {
                if goAway == nil, let session {
                    let allowed = Int(
                        nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
                    while next < requests.count && streams.count < min(limit, allowed) {
                        submit(requests[next], index: next)
                        next += 1
                    }
                }
                return streams.isEmpty && (next == requests.count || goAway != nil)
            }
        } catch {
            fail(error)
        }
        // Requests never sent: refused by GOAWAY, or the connection failed.
        let reason: HTTP2ClientError = goAway.map { .goAway($0) } ?? failure ?? .connectionClosed
        for index in next..<requests.count where results[index] == nil {
            results[index] = HTTP2ClientResult(index: index, streamID: nil, outcome: .failed(reason), latency: nil)
        }
        let finished = results.map { $0! }
        results = []
        return finished
    }

    /// Hands one request to nghttp2; the HEADERS go out on the next write.
    private func submit(_ request: HTTP2ClientRequest, index: Int) {
        var fields: [(String, String)] = [
            (":method", request.method), (":scheme", endpoint.secure ? "https" : "http"),
            (":authority", endpoint.authority), (":path", request.path),
        ]
        fields += request.headers.map { ($0.name, $0.value) }
        let stream = ClientStream(index: index, requestBody: request.body, submittedAt: MonotonicClock.nanoseconds())
        let streamID = withHeaderFields(fields) { nva -> Int32 in
            if request.body.isEmpty {
                return nghttp2_submit_request(session, nil, nva.baseAddress, nva.count, nil, nil)
            }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil),
                read_callback: ClientCallbacks.readRequestBody)
            return nghttp2_submit_request(session, nil, nva.baseAddress, nva.count, &provider, nil)
        }
        guard streamID > 0 else {
            let message = String(cString: nghttp2_strerror(streamID))
            results[index] = HTTP2ClientResult(
                index: index, streamID: nil,
                outcome: .failed(.protocolError("cannot submit the request: \(message)")), latency: nil)
            return
        }
        streams[streamID] = stream
        peakOpenStreams = max(peakOpenStreams, streams.count)
    }

    /// Calls `body` with an `nghttp2_nv` array whose names and values live in one temporary
    /// allocation (nghttp2 copies them during `submit`).
    private func withHeaderFields<T>(_ fields: [(String, String)], _ body: (UnsafeBufferPointer<nghttp2_nv>) -> T) -> T
    {
        let total = fields.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count }
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: max(total, 1))
        defer { storage.deallocate() }
        var offset = 0
        func copy(_ text: String) -> (UnsafeMutablePointer<UInt8>, Int) {
            let start = storage + offset
            for (position, byte) in text.utf8.enumerated() { start[position] = byte }
            offset += text.utf8.count
            return (start, text.utf8.count)
        }
        var nva: [nghttp2_nv] = []
        nva.reserveCapacity(fields.count)
        for (name, value) in fields {
            let (namePointer, nameLength) = copy(name)
            let (valuePointer, valueLength) = copy(value)
            nva.append(
                nghttp2_nv(
                    name: namePointer, value: valuePointer, namelen: nameLength, valuelen: valueLength,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
        }
        return nva.withUnsafeBufferPointer(body)
    }

    /// Fails every open stream with `error` and marks the connection unusable.
    private func fail(_ error: HTTP2ClientError) {
        let reason: HTTP2ClientError = goAway.map { .goAway($0) } ?? error
        failure = failure ?? error
        for (streamID, stream) in streams {
            results[stream.index] = HTTP2ClientResult(
                index: stream.index, streamID: streamID, outcome: .failed(reason),
                latency: MonotonicClock.milliseconds(since: stream.sentAt ?? stream.submittedAt))
        }
        streams.removeAll()
    }

    // MARK: Session and I/O

    /// Creates the nghttp2 session, sends the preface with SETTINGS (no server push) and waits
    /// for the server's SETTINGS.
    private func startSession(timeout: Double) throws(HTTP2ClientError) {
        var session: OpaquePointer?
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_client_new(&session, ClientCallbacks.shared.callbacks, me) == 0, let session else {
            throw .protocolError("cannot create an nghttp2 session")
        }
        self.session = session
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0)]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        do {
            try pump(timeout: timeout, waitingFor: "waiting for the server's HTTP/2 SETTINGS") { settingsReceived }
        } catch {
            failure = error
            switch error {
            case .protocolError(let message): throw .notHTTP2(message)
            case .connectionClosed where !endpoint.secure:
                throw .notHTTP2("it closed the connection after the HTTP/2 preface")
            default: throw error
            }
        }
        if let goAway { throw .goAway(goAway) }
    }

    /// Moves bytes both ways until `done` returns true. `done` runs before every wait and may
    /// submit requests.
    /// - Throws: when the connection fails, closes, or `timeout` seconds pass without input.
    private func pump(timeout: Double, waitingFor what: String, until done: () -> Bool) throws(HTTP2ClientError) {
        if let failure { throw failure }
        var deadline = MonotonicClock.deadline(after: timeout)
        while true {
            let finished = done()
            try writePending()
            if finished { return }
            guard let session else { throw .connectionClosed }
            if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
                // nghttp2 ended the session itself (e.g. after a GOAWAY it sent for a protocol error).
                throw goAway.map { .goAway($0) } ?? .protocolError("the HTTP/2 session ended")
            }
            let wantWrite = outputOffset < output.count
            var poller = pollfd(fd: socket.fd, events: Int16(POLLIN | (wantWrite ? POLLOUT : 0)), revents: 0)
            let ready = poll(&poller, 1, MonotonicClock.pollTimeout(until: deadline))
            if ready < 0 {
                if errno == EINTR { continue }
                throw .io(String(cString: strerror(errno)))
            }
            if ready == 0 { throw .timedOut(what: what, seconds: timeout) }
            if poller.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0, try readAvailable() {
                deadline = MonotonicClock.deadline(after: timeout)
            }
        }
    }

    /// Reads until the socket would block, feeding nghttp2. True when any byte arrived.
    private func readAvailable() throws(HTTP2ClientError) -> Bool {
        var received = false
        while true {
            switch try socket.read(into: readBuffer, count: Self.readSize) {
            case .bytes(let count):
                received = true
                let consumed = nghttp2_session_mem_recv(session, readBuffer.assumingMemoryBound(to: UInt8.self), count)
                if consumed < 0 {
                    try? writePending()  // deliver the GOAWAY nghttp2 queued, if any
                    throw .protocolError(String(cString: nghttp2_strerror(Int32(consumed))))
                }
            case .wouldBlock:
                return received
            case .closed:
                throw goAway.map { .goAway($0) } ?? .connectionClosed
            }
        }
    }

    /// Writes everything nghttp2 has to send, until the socket would block.
    private func writePending() throws(HTTP2ClientError) {
        guard let session else { return }
        while true {
            while output.count - outputOffset < 64 * 1024 {
                var data: UnsafePointer<UInt8>?
                let count = nghttp2_session_mem_send(session, &data)
                if count < 0 { throw .protocolError(String(cString: nghttp2_strerror(Int32(count)))) }
                guard count > 0, let data else { break }
                output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
            }
            if outputOffset == output.count {
                output.removeAll(keepingCapacity: true)
                outputOffset = 0
                return
            }
            while outputOffset < output.count {
                // Result carries the typed error out of the non-typed-throws withUnsafeBytes.
                let transfer = output.withUnsafeBytes { raw in
                    Result { () throws(HTTP2ClientError) in
                        try socket.write(raw.baseAddress! + outputOffset, count: raw.count - outputOffset)
                    }
                }
                switch try transfer.get() {
                case .bytes(let count): outputOffset += count
                case .wouldBlock, .closed: return
                }
            }
        }
    }

    // MARK: nghttp2 callbacks (called from inside mem_recv / mem_send)

    func receivedHeader(_ streamID: Int32, name: String, value: String) {
        streams[streamID]?.header(name: name, value: value)
    }

    func receivedData(_ streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        streams[streamID]?.body.append(contentsOf: bytes)
    }

    func receivedFrame(_ frame: nghttp2_frame) {
        switch UInt32(frame.hd.type) {
        case NGHTTP2_SETTINGS.rawValue:
            if frame.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 { settingsReceived = true }
        case NGHTTP2_GOAWAY.rawValue:
            var debug: [UInt8] = []
            if let data = frame.goaway.opaque_data, frame.goaway.opaque_data_len > 0 {
                debug = Array(UnsafeBufferPointer(start: data, count: frame.goaway.opaque_data_len))
            }
            goAway = HTTP2GoAway(
                errorCode: HTTP2ErrorCode(rawValue: frame.goaway.error_code),
                lastStreamID: frame.goaway.last_stream_id, debugData: debug)
        case NGHTTP2_RST_STREAM.rawValue:
            streams[frame.hd.stream_id]?.resetByPeer = HTTP2ErrorCode(rawValue: frame.rst_stream.error_code)
        default:
            break
        }
    }

    func sentHeaders(_ streamID: Int32) {
        streams[streamID]?.sentAt = MonotonicClock.nanoseconds()
    }

    /// A request's HEADERS could not go out (e.g. a GOAWAY arrived while it was queued):
    /// nghttp2 may not report a stream close for it, so it ends here.
    func headersNotSent(_ streamID: Int32, libraryError: Int32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        let error: HTTP2ClientError =
            goAway.map { .goAway($0) }
            ?? .protocolError("the request could not be sent: \(String(cString: nghttp2_strerror(libraryError)))")
        results[stream.index] = HTTP2ClientResult(
            index: stream.index, streamID: nil, outcome: .failed(error), latency: nil)
    }

    func streamClosed(_ streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        let latency = MonotonicClock.milliseconds(since: stream.sentAt ?? stream.submittedAt)
        let outcome: HTTP2ClientResult.Outcome
        if let reset = stream.resetByPeer, reset.rawValue != 0 || stream.status == nil {
            outcome = .streamReset(reset)
        } else if let status = stream.status, errorCode == 0 || stream.resetByPeer != nil {
            outcome = .response(HTTP2ClientResponse(status: status, headers: stream.headers, body: stream.body))
        } else if let goAway, streamID > goAway.lastStreamID {
            outcome = .failed(.goAway(goAway))
        } else {
            let code = HTTP2ErrorCode(rawValue: errorCode)
            outcome = .failed(.protocolError("stream \(streamID) closed without a complete response (\(code))"))
        }
        results[stream.index] = HTTP2ClientResult(
            index: stream.index, streamID: streamID, outcome: outcome, latency: latency)
    }

    func readRequestBody(
        _ streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int,
        flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let stream = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = min(length, stream.requestBody.count - stream.requestOffset)
        stream.requestBody.withUnsafeBufferPointer { body in
            buffer.update(from: body.baseAddress! + stream.requestOffset, count: count)
        }
        stream.requestOffset += count
        if stream.requestOffset == stream.requestBody.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}
