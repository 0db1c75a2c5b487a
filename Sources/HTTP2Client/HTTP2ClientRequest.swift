import HTTPFields

/// One request to send: method, path, header fields and body. `:scheme` and `:authority`
/// come from the connection.
public struct HTTP2ClientRequest: Sendable, Equatable {
    /// The method, `POST` for APNs.
    public var method: String
    /// The path, e.g. `/3/device/<token>`.
    public var path: String
    /// Regular header fields, sent in order.
    public var headers: [HeaderField]
    /// The body; empty means HEADERS with END_STREAM and no DATA.
    public var body: [UInt8]

    /// Creates a request.
    public init(method: String = "POST", path: String, headers: [HeaderField] = [], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }
}
