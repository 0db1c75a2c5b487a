import HTTPFields

/// A complete response: status, header fields (trailers appended) and body.
public struct HTTP2ClientResponse: Sendable, Equatable {
    /// The `:status`, e.g. 200.
    public var status: Int
    /// Regular header fields in arrival order, names lowercase.
    public var headers: [HeaderField]
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [HeaderField] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header field `name` (case-insensitive), if present.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }
}
