// Requests (`HTTP2Request`) and responses carry HTTPFields' types, which the application shares.
@_exported import HTTPFields

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
