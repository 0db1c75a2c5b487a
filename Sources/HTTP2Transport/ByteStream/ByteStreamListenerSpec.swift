/// One address a `ByteStreamServer` listens on, and the TLS it speaks there.
public struct ByteStreamListenerSpec: Sendable {
    /// Host to bind (numeric address or name).
    public var host: String
    /// Port to bind; 0 picks a free one.
    public var port: Int
    /// TLS context, or nil for cleartext.
    public var tls: TLSContext?

    /// Creates a spec.
    public init(host: String, port: Int, tls: TLSContext?) {
        self.host = host
        self.port = port
        self.tls = tls
    }
}
