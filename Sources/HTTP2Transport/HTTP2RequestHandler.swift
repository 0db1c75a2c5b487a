/// What the transport does with a complete request, as decided by the handler.
public enum HTTP2Action: Sendable {
    /// Send this response on the stream.
    case respond(HTTP2Response)
    /// Send RST_STREAM with this HTTP/2 error code (e.g. 7 REFUSED_STREAM, 8 CANCEL).
    case resetStream(errorCode: UInt32)
    /// Leave the stream open and unanswered; `HTTP2Connection.respond` may answer it later.
    case noResponse
    /// Answer the stream with nothing and end the connection: GOAWAY with `errorCode`,
    /// `lastStreamID` and `debugData`, then close once it is written.
    case goAway(errorCode: UInt32, lastStreamID: Int32, debugData: [UInt8])
}

/// The application behind an `HTTP2Server`. Every call arrives on the connection's loop thread.
public protocol HTTP2RequestHandler: AnyObject, Sendable {
    /// Decides a complete request. Runs on the connection's loop thread: return quickly.
    func handle(_ request: HTTP2Request, on connection: HTTP2Connection) -> HTTP2Action
    /// A connection finished its handshake and sent its SETTINGS.
    func connectionOpened(_ connection: HTTP2Connection)
    /// A connection is gone (closed by either side or reset).
    func connectionClosed(_ connection: HTTP2Connection)
    /// A request's HEADERS arrived and its body has not (only asked when
    /// `connection.decideOnHeaders` is true). Return an action to carry out now, without reading
    /// the body (APNs answers a rejected certificate with GOAWAY right after the first HEADERS:
    /// cases C2), or nil to wait for the whole request. The request's body is empty.
    func headersReceived(_ request: HTTP2Request, on connection: HTTP2Connection) -> HTTP2Action?
    /// The SETTINGS to open `connection` with, given the listener's; called once after the
    /// handshake, before `connectionOpened`. The default keeps the listener's.
    func settings(for connection: HTTP2Connection, proposed: HTTP2Settings) -> HTTP2Settings
}

extension HTTP2RequestHandler {
    public func headersReceived(_ request: HTTP2Request, on connection: HTTP2Connection) -> HTTP2Action? { nil }
    public func settings(for connection: HTTP2Connection, proposed: HTTP2Settings) -> HTTP2Settings { proposed }
}
