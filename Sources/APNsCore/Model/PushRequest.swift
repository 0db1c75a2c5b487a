/// An HTTP/2 request on the APNs port as the transport assembled it: pseudo-headers split
/// out, regular headers in arrival order, the whole body.
public struct PushRequest: Sendable {
    /// `:method`, e.g. `POST`.
    public var method: String
    /// `:path`, e.g. `/3/device/<hex>`.
    public var path: String
    /// `:authority`, when sent.
    public var authority: String?
    /// Regular (non-pseudo) header fields, names lowercase, in the order received.
    public var headers: [HeaderField]
    /// The request body, exactly the bytes received (only the first bytes when the transport
    /// cut a body far over APNs's limits).
    public var body: [UInt8]
    /// How many body bytes arrived, in all: the size APNs's limits are checked against.
    public var bodyLength: Int

    /// The arguments are consumed (moved in, not copied): the transport hands over its own.
    /// Inlinable, so the caller builds the request in place (else it was built, copied and destroyed).
    @inlinable
    public init(
        method: consuming String, path: consuming String, authority: consuming String? = nil,
        headers: consuming [HeaderField], body: consuming [UInt8], bodyLength: Int? = nil
    ) {
        self.bodyLength = bodyLength ?? body.count
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
        self.body = body
    }
}

/// Where a request arrived: which listener and which connection and stream.
public struct PushOrigin: Sendable, Hashable {
    /// Process-unique connection id, counting from 1 in order of acceptance.
    public var id: UInt64
    /// The listener's name from the configuration (e.g. `sandbox`).
    public var listener: String
    /// The listener's environment.
    public var environment: APNsEnvironment
    /// The peer address as `host:port`.
    public var peer: String

    public init(id: UInt64, listener: String, environment: APNsEnvironment, peer: String) {
        self.id = id
        self.listener = listener
        self.environment = environment
        self.peer = peer
    }
}
