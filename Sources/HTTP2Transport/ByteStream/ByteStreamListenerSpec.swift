/// One address a `ByteStreamServer` listens on, and the TLS it speaks there.
public struct ByteStreamListenerSpec: Sendable {
    /// Host to bind (numeric address or name).
    public var host: String
    /// Port to bind; 0 picks a free one.
    public var port: Int
    /// TLS context, or nil for cleartext.
    public var tls: TLSContext?
    /// Seconds a connection may go without a byte from its peer (after the handshake) before
    /// it is closed (FIN); nil: never.
    public var idleTimeoutSeconds: Double?
    /// Connections open at once on this listener (handshaking included), at least 1; one
    /// accepted beyond it is closed at once (TCP reset) and counted (`ByteStreamServer.refusedConnections`).
    public var maxConnections: Int

    /// Creates a spec.
    public init(
        host: String, port: Int, tls: TLSContext?, idleTimeoutSeconds: Double? = nil, maxConnections: Int = .max
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.maxConnections = max(1, maxConnections)
    }
}
