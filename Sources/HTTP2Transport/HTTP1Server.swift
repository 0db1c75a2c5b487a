import CLibevent
import Glibc
import Synchronization

/// An HTTP/1.1 request to the control server.
public struct HTTP1Request: Sendable {
    /// `GET`, `POST`, `PUT`, `DELETE`, ... (`OTHER` for methods libevent does not name).
    public var method: String
    /// The path, without the query string, as sent (not percent-decoded).
    public var path: String
    /// Query parameters in order, percent-decoded.
    public var query: [(name: String, value: String)]
    /// The body bytes.
    public var body: [UInt8]
    /// The request's header fields in the order received, names as sent (compare them
    /// case-insensitively), values with libevent's trimming.
    public var headers: [(name: String, value: String)]

    /// A request of `method` to `target` as sent (`/v1/deliveries?status=400&topic=a+b`): the
    /// path up to `?` kept as sent, the query split and percent-decoded by libevent
    /// (`evhttp_parse_query_str`: `+` is a space, `%XX` escapes). Nil when libevent refuses the
    /// query (e.g. a parameter without `=`), or for an encoded NUL
    /// (`%00`), which libevent's C strings would silently cut the value at; the server answers
    /// those 400 `malformed query string`. The one query parser: the server's and the tests'.
    public init?(
        method: String, target: String, body: [UInt8] = [], headers: [(name: String, value: String)] = []
    ) {
        var path = target
        var query: [(name: String, value: String)] = []
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            guard let parsed = Self.parseQuery(String(target[target.index(after: mark)...])) else { return nil }
            query = parsed
        }
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.headers = headers
    }

    /// Splits `a=1&b=x%20y` into decoded pairs; nil when libevent rejects the encoding, or for
    /// an encoded NUL (`%00`).
    private static func parseQuery(_ text: String) -> [(name: String, value: String)]? {
        let bytes = Array(text.utf8)
        if bytes.count >= 3,
            (0...(bytes.count - 3)).contains(where: {
                bytes[$0] == 0x25 && bytes[$0 + 1] == 0x30 && bytes[$0 + 2] == 0x30
            })
        {
            return nil
        }
        var list = evkeyvalq()
        guard evhttp_parse_query_str(text, &list) == 0 else {
            evhttp_clear_headers(&list)
            return nil
        }
        defer { evhttp_clear_headers(&list) }
        var pairs: [(name: String, value: String)] = []
        var item = list.tqh_first
        while let entry = item {
            pairs.append((String(cString: entry.pointee.key), String(cString: entry.pointee.value)))
            item = entry.pointee.next.tqe_next
        }
        return pairs
    }
}

/// One request awaiting its answer. Answer exactly once, on the server's loop thread; an answer
/// may come later (long poll), and is dropped quietly when the client has gone.
public final class HTTP1Exchange: @unchecked Sendable {
    private var request: OpaquePointer?
    /// The server's count of answers not yet written out, nil for none.
    private let unwritten: UnwrittenReplies?

    init(request: OpaquePointer, unwritten: UnwrittenReplies? = nil) {
        self.request = request
        self.unwritten = unwritten
    }

    /// True when the client has closed its end before the answer (its FIN, or an error, seen by
    /// a non-blocking peek at the socket), so a long poll can stop holding the connection. Bytes
    /// waiting to be read (a pipelined request) do not count as gone.
    public var clientHasGone: Bool {
        guard let request, let connection = evhttp_request_get_connection(request),
            let events = evhttp_connection_get_bufferevent(connection)
        else { return false }
        let fd = bufferevent_getfd(events)
        guard fd >= 0 else { return true }
        var byte: UInt8 = 0
        let peeked = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    /// Answers with a live stream instead of one body (`HTTP1ResponseStream`): status 200,
    /// `content-type` and any extra `headers`, then chunks as they are written. Nil when the
    /// exchange was already answered.
    public func startStream(
        contentType: String, headers extra: [(name: String, value: String)] = []
    ) -> HTTP1ResponseStream? {
        guard let request else { return nil }
        self.request = nil
        unwritten?.track(request)
        return HTTP1ResponseStream.start(request, contentType: contentType, headers: extra)
    }

    /// Sends the answer with `content-type`, any extra `headers`, and the body.
    public func respond(
        status: Int, contentType: String = "application/json",
        headers extra: [(name: String, value: String)] = [], body: [UInt8]
    ) {
        guard let request else { return }
        self.request = nil
        // Counted until libevent has written the whole answer, so that a stop frees the
        // connections only once their answers are out.
        unwritten?.track(request)
        let headers = evhttp_request_get_output_headers(request)
        evhttp_add_header(headers, "Content-Type", contentType)
        for field in extra { evhttp_add_header(headers, field.name, field.value) }
        evhttp_add_header(headers, "Cache-Control", "no-store")
        if evhttp_request_get_command(request) == EVHTTP_REQ_HEAD {
            // The headers of the answer a GET would get, and no body (RFC 9110 section 9.3.2).
            evhttp_add_header(headers, "Content-Length", String(body.count))
            evhttp_send_reply(request, Int32(status), HTTP1Server.reasonPhrase(status), nil)
            return
        }
        let buffer = evbuffer_new()
        defer { evbuffer_free(buffer) }
        body.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
        evhttp_send_reply(request, Int32(status), HTTP1Server.reasonPhrase(status), buffer)
    }
}

/// A small HTTP/1.1 server on libevent's `evhttp`, for the JSON control API.
public final class HTTP1Server: @unchecked Sendable {
    private let http: OpaquePointer
    private let loop: EventLoop
    private let listener: OpaquePointer
    private var closed = false
    /// accept() failures, logged at most once a second; on the loop's thread.
    private var acceptFailures = AcceptFailureLog(what: "control API")
    private let handler: (HTTP1Request, HTTP1Exchange) -> Void
    /// Answers sent whose bytes libevent has not yet written out (on the loop's thread).
    private let unwritten = UnwrittenReplies()
    /// How many answers are sent but not yet fully written to their sockets; read on the loop's
    /// thread. A stop waits for 0 before `close()`, which would drop them.
    public var unwrittenReplies: Int { unwritten.count }
    /// The address bound (the port resolved when 0 was asked).
    public private(set) var boundAddress: SocketAddress

    /// The default of `maxHeaderBytes`: 1 MiB (a query of 20,000 parameters, about 200 KB, is
    /// still answered with its own JSON error; a 40 MB one is refused unread).
    public static let defaultMaxHeaderBytes = 1 << 20
    /// The default of `idleTimeoutSeconds`: 30 seconds.
    public static let defaultIdleTimeoutSeconds = 30

    /// Binds `host:port` on `loop`. Call before the loop runs or on its thread.
    /// - Parameters:
    ///   - maxBodyBytes: the largest request body; libevent answers a larger one 413 and closes.
    ///   - maxHeaderBytes: the largest request line plus headers, in bytes
    ///     (`evhttp_set_max_headers_size`); libevent answers a larger one 413 as soon as that many
    ///     bytes have come without the end of the headers, and closes the connection.
    ///   - idleTimeoutSeconds: how long a connection may stay silent, in seconds, while a
    ///     request is being read or between requests (`evhttp_set_timeout`): then it is closed.
    ///     A request being answered (a long-poll wait) is not timed out (`dispatch`).
    ///   - handler: called on the loop's thread for every request.
    /// - Throws: `TransportError` when the address cannot be bound.
    public init(
        loop: EventLoop, host: String, port: Int, maxBodyBytes: Int = 1 << 20,
        maxHeaderBytes: Int = HTTP1Server.defaultMaxHeaderBytes,
        idleTimeoutSeconds: Int = HTTP1Server.defaultIdleTimeoutSeconds,
        handler: @escaping (HTTP1Request, HTTP1Exchange) -> Void
    ) throws {
        guard let http = evhttp_new(loop.base) else { throw TransportError("evhttp_new failed") }
        self.http = http
        self.handler = handler
        evhttp_set_max_body_size(http, maxBodyBytes)
        evhttp_set_max_headers_size(http, maxHeaderBytes)
        evhttp_set_timeout(http, Int32(clamping: idleTimeoutSeconds))
        evhttp_set_allowed_methods(
            http,
            UInt16(
                EVHTTP_REQ_GET.rawValue | EVHTTP_REQ_POST.rawValue
                    | EVHTTP_REQ_PUT.rawValue | EVHTTP_REQ_DELETE.rawValue | EVHTTP_REQ_PATCH.rawValue
                    | EVHTTP_REQ_HEAD.rawValue | EVHTTP_REQ_OPTIONS.rawValue))
        let fd: Int32
        do {
            fd = try HTTP2Server.listeningSocket(SocketAddress(host: host, port: port))
        } catch {
            evhttp_free(http)
            throw TransportError("cannot listen on \(host):\(port) for the control API: \(error)")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        boundAddress = SocketAddress(storage: storage, length: length)
        // Our own listener rather than evhttp_bind_socket, for its error callback: out of file
        // descriptors, accept() fails on every loop turn and libevent would spin and log each one.
        guard
            let listener = evconnlistener_new(
                loop.base, nil, nil,
                UInt32(LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC), 0, fd),
            evhttp_bind_listener(http, listener) != nil
        else {
            Glibc.close(fd)
            evhttp_free(http)
            throw TransportError("cannot listen on \(host):\(port) for the control API")
        }
        self.loop = loop
        self.listener = listener
        evhttp_set_gencb(
            http,
            { request, arg in
                guard let request, let arg else { return }
                Unmanaged<HTTP1Server>.fromOpaque(arg).takeUnretainedValue().dispatch(request)
            }, Unmanaged.passUnretained(self).toOpaque())
        HTTP1Server.servers.withLock { $0[UInt(bitPattern: listener)] = WeakServer(self) }
        evconnlistener_set_error_cb(listener) { listener, _ in HTTP1Server.acceptFailed(listener) }
    }

    /// Frees the listener. Call on the loop's thread.
    public func close() {
        guard !closed else { return }
        closed = true
        HTTP1Server.servers.withLock { $0[UInt(bitPattern: listener)] = nil }
        evhttp_free(http)
    }

    private final class WeakServer: @unchecked Sendable {
        weak var server: HTTP1Server?
        init(_ server: HTTP1Server) { self.server = server }
    }

    /// Live servers by listener address: the listener's callback argument belongs to evhttp.
    private static let servers = Mutex<[UInt: WeakServer]>([:])

    /// accept() failed (typically EMFILE): stop accepting for 100 ms rather than spin. On the
    /// loop's thread.
    private static func acceptFailed(_ listener: OpaquePointer?) {
        let code = errno
        guard let listener, let server = servers.withLock({ $0[UInt(bitPattern: listener)]?.server }) else { return }
        server.acceptFailures.report(code: code, now: HTTP2Connection.monotonicSeconds())
        evconnlistener_disable(listener)
        _ = server.loop.schedule(after: 0.1) { [weak server] in
            guard let server, !server.closed else { return }
            evconnlistener_enable(server.listener)
        }
    }

    private func dispatch(_ request: OpaquePointer) {
        let method: String
        switch evhttp_request_get_command(request) {
        case EVHTTP_REQ_GET: method = "GET"
        case EVHTTP_REQ_POST: method = "POST"
        case EVHTTP_REQ_PUT: method = "PUT"
        case EVHTTP_REQ_DELETE: method = "DELETE"
        case EVHTTP_REQ_PATCH: method = "PATCH"
        case EVHTTP_REQ_HEAD: method = "HEAD"
        case EVHTTP_REQ_OPTIONS: method = "OPTIONS"
        default: method = "OTHER"
        }
        let exchange = HTTP1Exchange(request: request, unwritten: unwritten)
        let uri = evhttp_request_get_uri(request).map { String(cString: $0) } ?? "/"
        var body: [UInt8] = []
        if let input = evhttp_request_get_input_buffer(request) {
            let length = evbuffer_get_length(input)
            if length > 0 {
                body = [UInt8](repeating: 0, count: length)
                _ = body.withUnsafeMutableBytes { evbuffer_copyout(input, $0.baseAddress, length) }
            }
        }
        var headers: [(name: String, value: String)] = []
        if let input = evhttp_request_get_input_headers(request) {
            var item = input.pointee.tqh_first
            while let entry = item {
                headers.append((String(cString: entry.pointee.key), String(cString: entry.pointee.value)))
                item = entry.pointee.next.tqe_next
            }
        }
        guard let parsed = HTTP1Request(method: method, target: uri, body: body, headers: headers) else {
            exchange.respond(status: 400, body: Self.malformedQueryBody)
            return
        }
        handler(parsed, exchange)
    }

    /// The body of the 400 answer to a query `HTTP1Request(method:target:)` refuses:
    /// `{"error":"malformed query string"}`.
    public static let malformedQueryBody = Array(#"{"error":"malformed query string"}"#.utf8)

    /// The HTTP/1.1 reason phrase of the status line for `status` (RFC 9110 section 15): every
    /// status the control server sends has its registered phrase ("429 Too Many Requests");
    /// 499 is nginx's "Client Closed Request"; any other code gets its class's name
    /// ("Informational", "Success", "Redirection", "Client Error", "Server Error").
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 417: return "Expectation Failed"
        case 421: return "Misdirected Request"
        case 422: return "Unprocessable Content"
        case 426: return "Upgrade Required"
        case 428: return "Precondition Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 499: return "Client Closed Request"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default:
            switch status / 100 {
            case 1: return "Informational"
            case 2: return "Success"
            case 3: return "Redirection"
            case 4: return "Client Error"
            default: return "Server Error"
            }
        }
    }
}
