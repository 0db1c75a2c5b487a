/// What the transport does with a complete request, as decided by the handler.
public enum HTTP2Action: Sendable {
    /// Send this response on the stream.
    case respond(HTTP2Response)
    /// Send RST_STREAM with this HTTP/2 error code (e.g. 7 REFUSED_STREAM, 8 CANCEL).
    case resetStream(errorCode: UInt32)
    /// Leave the stream open and unanswered; `HTTP2Connection.perform` may answer it later.
    case noResponse
    /// Answer the stream with nothing and end the connection: GOAWAY with `errorCode`,
    /// `lastStreamID` and `debugData`, then close once it is written.
    case goAway(errorCode: UInt32, lastStreamID: Int32, debugData: [UInt8])
}

/// The application behind an `HTTP2Server`. Every call arrives on the connection's loop thread.
public protocol HTTP2RequestHandler: AnyObject, Sendable {
    /// Decides a complete request. Runs on the connection's loop thread: return quickly.
    /// `request` may be changed: a handler that keeps a field moves it out (e.g. with `swap`)
    /// instead of copying it, which spares a retain and a release; one that keeps the whole
    /// request may hand back another in its place (MockAPNs hands back the connection's previous
    /// request). Afterwards the transport reads only `tag` and keeps the body's storage for the
    /// stream's next request, so a handler that moves the body out costs an allocation per
    /// request instead.
    func handle(_ request: inout HTTP2Request, on connection: HTTP2Connection) -> HTTP2Action
    /// A connection finished its handshake and sent its SETTINGS.
    func connectionOpened(_ connection: HTTP2Connection)
    /// A connection is gone (closed by either side or reset).
    func connectionClosed(_ connection: HTTP2Connection)
    /// A request's HEADERS arrived and its body has not (only asked when
    /// `connection.decideOnHeaders` is true). Return an action to carry out now, without reading
    /// the body (APNs answers a rejected certificate with GOAWAY right after the first HEADERS:
    /// docs/field-cases.md C2), or nil to wait for the whole request. The request's body is empty;
    /// a `tag` set on it names the stream if it then ends unanswered (`streamEndedUnanswered`).
    func headersReceived(_ request: inout HTTP2Request, on connection: HTTP2Connection) -> HTTP2Action?
    /// What to do with a connection just accepted on `listenerIndex`; called on the accept
    /// thread before anything is read from it.
    func admit(listenerIndex: Int) -> HTTP2Admission
    /// The SETTINGS to open `connection` with, given the listener's; called once after the
    /// handshake, before `connectionOpened`. The default keeps the listener's.
    func settings(for connection: HTTP2Connection, proposed: HTTP2Settings) -> HTTP2Settings
    /// The transport did something to `connection` on its own (a listener condition, the idle
    /// timeout, a graceful shutdown); on the connection's loop thread. The default ignores it.
    func transportEvent(_ event: HTTP2TransportEvent, on connection: HTTP2Connection)
    /// The stream `streamID`, tagged `tag` by `handle` (`HTTP2Request.tag`, never 0 here), ended
    /// without its response HEADERS having been written, for `end`; on the loop thread, before
    /// `connectionClosed` when the connection's end ended it. The default ignores it.
    func streamEndedUnanswered(tag: UInt64, streamID: Int32, end: HTTP2StreamEnd, on connection: HTTP2Connection)
    /// A complete request arrived after the connection's end was decided (a close or reset
    /// waiting for nghttp2 to return or for the buffer to be written, or a blackhole: the rest of
    /// a batch read in one go). It is not served: nothing is answered and nothing decided for it.
    /// A `tag` set on `request` names it; the stream then ends unanswered with the connection
    /// (`streamEndedUnanswered`, with the close's cause). The default ignores it.
    func requestNotServed(_ request: inout HTTP2Request, on connection: HTTP2Connection)
    /// A connection from `peer` accepted on `listenerIndex` was refused (`admit` said `.refuse`)
    /// and reset; it got no id. Called on the accept thread. The default ignores it.
    func connectionRefused(listenerIndex: Int, peer: String)
    /// What answers must wait for before they leave, or nil (the default): when set, each
    /// connection calls its `awaitDurable()` before it writes what nghttp2 serialized, once per
    /// write-out (after a read pass, a timer, a delayed answer), not once per answer. Read once
    /// per connection, when it is made. MockAPNs's journal with `--journal-sync always`.
    var answerDurability: (any AnswerDurability)? { get }
}

/// How a new connection is treated before its first byte is read.
public enum HTTP2Admission: Sendable, Equatable {
    /// Serve it after `delay` seconds (0: at once): a slow TLS handshake as the client sees it.
    case proceed(delay: Double)
    /// Keep the TCP connection open and never read or answer (until the server stops, or
    /// `HTTP2Server.silentLimit` seconds).
    case silent
    /// Close it at once with a TCP reset.
    case refuse
}

extension HTTP2RequestHandler {
    public func admit(listenerIndex: Int) -> HTTP2Admission { .proceed(delay: 0) }
    public func headersReceived(_ request: inout HTTP2Request, on connection: HTTP2Connection) -> HTTP2Action? {
        nil
    }
    public func settings(for connection: HTTP2Connection, proposed: HTTP2Settings) -> HTTP2Settings { proposed }
    public func transportEvent(_ event: HTTP2TransportEvent, on connection: HTTP2Connection) {}
    public func connectionRefused(listenerIndex: Int, peer: String) {}
    public var answerDurability: (any AnswerDurability)? { nil }
    public func requestNotServed(_ request: inout HTTP2Request, on connection: HTTP2Connection) {}
    public func streamEndedUnanswered(
        tag: UInt64, streamID: Int32, end: HTTP2StreamEnd, on connection: HTTP2Connection
    ) {}
}
