/// What the transport does with a complete request, as decided by the handler.
public enum HTTP2Action: Sendable {
    /// Send this response on the stream.
    case respond(HTTP2Response)
    /// Send RST_STREAM with this HTTP/2 error code (e.g. 7 REFUSED_STREAM, 8 CANCEL).
    case resetStream(errorCode: UInt32)
    /// Leave the stream open and unanswered; `HTTP2Connection.respond` may answer it later.
    case noResponse
}

/// The application behind an `HTTP2Server`. Every call arrives on the connection's loop thread.
public protocol HTTP2RequestHandler: AnyObject, Sendable {
    /// Decides a complete request. Runs on the connection's loop thread: return quickly.
    func handle(_ request: HTTP2Request, on connection: HTTP2Connection) -> HTTP2Action
    /// A connection finished its handshake and sent its SETTINGS.
    func connectionOpened(_ connection: HTTP2Connection)
    /// A connection is gone (closed by either side or reset).
    func connectionClosed(_ connection: HTTP2Connection)
}
