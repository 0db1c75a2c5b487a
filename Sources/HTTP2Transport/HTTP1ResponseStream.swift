import CLibevent
import Glibc

/// An HTTP/1.1 answer written piece by piece as a live stream (libevent's chunked replies:
/// `evhttp_send_reply_start`, `_chunk`, `_end`), from `HTTP1Exchange.startStream`. Used on the
/// server's loop thread only.
///
/// The connection's idle timeouts are off while the stream is open (a quiet stream is not an
/// idle connection); `finish(lingerSeconds:)` ends the answer and gives a consumer that stopped
/// reading that many seconds without progress before libevent closes the connection.
public final class HTTP1ResponseStream: @unchecked Sendable {
    /// The request, until `finish` hands it back to libevent. When the client goes, libevent
    /// detaches the request from its connection (`evhttp_request_get_connection` is then nil)
    /// and leaves it to `finish` to free.
    private var request: OpaquePointer?

    init(request: OpaquePointer) {
        self.request = request
    }

    /// The connection's bufferevent, nil once the client has gone or the answer ended.
    private var events: OpaquePointer? {
        guard let request, let connection = evhttp_request_get_connection(request) else { return nil }
        return evhttp_connection_get_bufferevent(connection)
    }

    /// True while the answer is not finished and the client's connection is open.
    public var isOpen: Bool { events != nil }

    /// Bytes written and not yet taken by the client's socket: the connection's output buffer
    /// (0 once closed).
    public var unsentBytes: Int {
        guard let events, let output = bufferevent_get_output(events) else { return 0 }
        return evbuffer_get_length(output)
    }

    /// Sends `bytes` as the next chunk; nothing once finished or gone.
    public func write(_ bytes: [UInt8]) {
        guard let request, !bytes.isEmpty, isOpen else { return }
        let buffer = evbuffer_new()
        defer { evbuffer_free(buffer) }
        bytes.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
        evhttp_send_reply_chunk(request, buffer)
    }

    /// Ends the answer (the last chunk) once what was written is sent, then the connection is
    /// closed; a client that takes nothing for `lingerSeconds` meanwhile is disconnected.
    /// Idempotent.
    public func finish(lingerSeconds: Double) {
        guard let request else { return }
        self.request = nil
        if let events = evhttp_request_get_connection(request).flatMap(evhttp_connection_get_bufferevent) {
            var linger = timeval(
                tv_sec: Int(lingerSeconds.rounded(.down)),
                tv_usec: Int((lingerSeconds - lingerSeconds.rounded(.down)) * 1_000_000))
            bufferevent_set_timeouts(events, nil, &linger)
        }
        evhttp_send_reply_end(request)
    }

    /// Starts the chunked answer to `request`: status 200, `content-type`, `headers`, and the
    /// idle timeouts off.
    static func start(
        _ request: OpaquePointer, contentType: String, headers extra: [(name: String, value: String)]
    ) -> HTTP1ResponseStream {
        let headers = evhttp_request_get_output_headers(request)
        evhttp_add_header(headers, "Content-Type", contentType)
        for field in extra { evhttp_add_header(headers, field.name, field.value) }
        evhttp_add_header(headers, "Cache-Control", "no-store")
        // One stream per connection, closed when the stream ends; and no proxy buffering.
        evhttp_add_header(headers, "Connection", "close")
        evhttp_add_header(headers, "X-Accel-Buffering", "no")
        if let connection = evhttp_request_get_connection(request),
            let events = evhttp_connection_get_bufferevent(connection)
        {
            bufferevent_set_timeouts(events, nil, nil)
        }
        evhttp_send_reply_start(request, 200, HTTP1Server.reasonPhrase(200))
        return HTTP1ResponseStream(request: request)
    }
}
