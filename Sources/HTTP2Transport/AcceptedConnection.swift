/// What a handler may know about the connection a request came on.
public struct AcceptedConnection: Sendable, Hashable {
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
    /// The client certificate presented during the TLS handshake (mutual TLS only).
    public var clientCertificate: ClientCertificate?
    /// The server's id of the listener: its index for a configured one (then equal to
    /// `listenerIndex`), the id `HTTP2Server.addListener` returned for one added at runtime.
    public var listenerID: Int = 0
}

/// A client certificate as presented, and OpenSSL's verdict on it.
public struct ClientCertificate: Sendable, Hashable {
    /// The leaf certificate, DER.
    public var der: [UInt8]
    /// True when it chains to a configured client CA and is within its validity period.
    public var verified: Bool
    /// OpenSSL's reason when not verified, e.g. `certificate has expired`.
    public var verifyError: String?
}
