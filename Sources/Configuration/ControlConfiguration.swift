/// Where the HTTP/1.1 control API (deliveries, devices, rules) listens.
public struct ControlConfiguration: Sendable, Equatable {
    /// Address to bind, as for `ListenerConfiguration.host`. Default `127.0.0.1`.
    public var host: String
    /// TCP port, 0 to 65535; 0 binds an ephemeral port. Default 8197.
    public var port: Int

    /// Creates a control API address; defaults `127.0.0.1:8197`.
    public init(host: String = "127.0.0.1", port: Int = 8197) {
        self.host = host
        self.port = port
    }

    /// `host:port`, with IPv6 hosts in brackets.
    public var address: String { HostPort(host: host, port: port).description }
}
