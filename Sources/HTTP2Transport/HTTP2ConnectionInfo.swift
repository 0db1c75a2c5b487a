/// What a handler may know about the connection a request came on.
public struct HTTP2ConnectionInfo: Sendable, Hashable {
    /// Process-unique id, from 1 in order of acceptance.
    public var id: UInt64
    /// The index of the listener in the server's listener list.
    public var listenerIndex: Int
    /// The peer as `host:port` (IPv6 in brackets).
    public var peer: String
    /// The ALPN protocol negotiated (`h2`), or nil when the client offered none or it is cleartext.
    public var alpn: String?
    /// True for TLS connections.
    public var tls: Bool
}
