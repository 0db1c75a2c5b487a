/// A complete HTTP/2 request (HEADERS, any DATA, END_STREAM) as the transport assembled it:
/// pseudo-headers split out, regular headers in arrival order, the body. The one request type
/// from the transport to the APNs domain (as `HeaderField` is the one header field): the
/// transport hands it to its handler, which gives it to `Gateway.handle` as it is, no copy or
/// conversion per push.
public struct HTTP2Request: Sendable {
    /// The stream it arrived on (0 for a request not from a connection, e.g. in tests).
    public var streamID: Int32
    /// `:method`, e.g. `POST`.
    public var method: String
    /// `:path`, e.g. `/3/device/<hex>`.
    public var path: String
    /// `:authority`, nil when absent.
    public var authority: String?
    /// Regular (non-pseudo) header fields, names lowercase (nghttp2 enforces HTTP/2's rules), in
    /// the order received.
    public var headers: [HeaderField]
    /// The request body, exactly the bytes received; only the first bytes when the transport
    /// cut a body far over its limit (`HTTP2Settings.maxStoredBodyBytes`).
    public var body: [UInt8]
    /// How many body bytes arrived, in all (more than `body.count` when the body was cut): the
    /// size APNs's limits are checked against.
    public var bodyLength: Int
    /// Set by the transport's handler (`HTTP2RequestHandler.handle`) to have the stream named by
    /// it when it ends unanswered (`streamEndedUnanswered`); 0, the default, asks for no such
    /// report. Opaque to the transport (MockAPNs puts the record's sequence number here).
    public var tag: UInt64 = 0

    /// An empty request on `streamID` (no method, path, fields or body) whose body length is
    /// `bodyLength`: the transport fills it by swapping its fields in. Not the consuming
    /// initializer: given empty values, that one made the optimizer build and copy an empty
    /// request per push (bench/callgrind.sh).
    @inlinable
    package init(emptyOn streamID: Int32, bodyLength: Int) {
        self.streamID = streamID
        self.method = ""
        self.path = ""
        self.authority = nil
        self.headers = []
        self.body = []
        self.bodyLength = bodyLength
    }

    /// The arguments are consumed (moved in, not copied): the transport hands over its own.
    /// Inlinable, so the caller builds the request in place (else it was built, copied and
    /// destroyed). `bodyLength` defaults to `body.count`.
    @inlinable
    public init(
        streamID: Int32 = 0, method: consuming String, path: consuming String, authority: consuming String? = nil,
        headers: consuming [HeaderField], body: consuming [UInt8], bodyLength: Int? = nil
    ) {
        self.streamID = streamID
        self.bodyLength = bodyLength ?? body.count
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
        self.body = body
    }
}
