// Requests and responses carry HTTPFields' `HeaderField`, which the application shares.
@_exported import HTTPFields

/// A complete HTTP/2 request (HEADERS, any DATA, END_STREAM), as handed to the server's handler.
public struct HTTP2Request: Sendable {
    /// The stream it arrived on.
    public var streamID: Int32
    /// `:method`, `:path`, `:authority` (nil when absent).
    public var method: String
    public var path: String
    public var authority: String?
    /// Regular header fields in arrival order; names are lowercase (nghttp2 enforces HTTP/2 rules).
    public var headers: [HeaderField]
    /// The request body bytes; only the first `HTTP2Settings.maxStoredBodyBytes` when longer.
    public var body: [UInt8]
    /// How many body bytes arrived in all (more than `body.count` when the body was cut).
    public var bodyLength: Int
    /// Set by the handler in `HTTP2RequestHandler.handle` to have the stream named by it when
    /// it ends unanswered (`streamEndedUnanswered`); 0, the default, asks for no such report.
    /// Opaque to the transport (MockAPNs puts the record's sequence number here).
    public var tag: UInt64 = 0
}

/// The response to send on a stream.
public struct HTTP2Response: Sendable {
    /// HTTP status code.
    public var status: Int
    /// Header fields other than `:status`, in order.
    public var headers: [HeaderField]
    /// Body bytes; when empty, the HEADERS frame carries END_STREAM.
    public var body: [UInt8]
    /// Header fields whose values are UUIDs made for this response, sent after `headers`
    /// (spelled straight into the frame: no `String` per value).
    public var uuidHeaders: UUIDHeaderFields

    public init(
        status: Int, headers: [HeaderField] = [], body: [UInt8] = [], uuidHeaders: UUIDHeaderFields = UUIDHeaderFields()
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.uuidHeaders = uuidHeaders
    }
}
