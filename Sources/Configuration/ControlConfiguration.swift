/// Where the HTTP/1.1 control API (deliveries, devices, rules) listens, and who may use it
/// (README "Security").
public struct ControlConfiguration: Sendable, Equatable {
    /// Address to bind, as for `ListenerConfiguration.host`. Default `127.0.0.1`.
    public var host: String
    /// TCP port, 0 to 65535; 0 binds an ephemeral port. Default 8197.
    public var port: Int
    /// `Host` names accepted besides loopback addresses and `localhost` (any port), lowercase;
    /// `*` accepts any (`--control-allow-host`, `control.allowHosts`). Default none.
    public var allowedHosts: [String]
    /// Origins (`http://host:port`) that may change state and get CORS headers
    /// (`--control-allow-origin`, `control.allowOrigins`). Default none: no CORS header is sent.
    public var allowedOrigins: [String]
    /// The bearer token every request must carry (`--control-token`, `MOCK_APNS_CONTROL_TOKEN`,
    /// `control.token`); nil requires none. Default nil.
    public var token: ControlToken?
    /// True lets the server start bound to a non-loopback address without a token
    /// (`--control-insecure-no-token`, `control.insecureNoToken`). Default false.
    public var insecureNoToken: Bool

    /// Creates a control API address; defaults `127.0.0.1:8197`, no allowed names or origins,
    /// no token.
    public init(
        host: String = "127.0.0.1", port: Int = 8197, allowedHosts: [String] = [], allowedOrigins: [String] = [],
        token: ControlToken? = nil, insecureNoToken: Bool = false
    ) {
        self.host = host
        self.port = port
        self.allowedHosts = allowedHosts
        self.allowedOrigins = allowedOrigins
        self.token = token
        self.insecureNoToken = insecureNoToken
    }

    /// `host:port`, with IPv6 hosts in brackets.
    public var address: String { HostPort(host: host, port: port).description }

    /// True when `host` is a loopback address (`127.0.0.0/8`, `::1`) or `localhost`: only local
    /// processes can connect.
    public var bindsLoopbackOnly: Bool {
        let name = host.lowercased()
        if name == "localhost" || name == "::1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Why the server must not start with this control API: bound beyond loopback with no token
    /// and no `insecureNoToken`; nil when it may.
    public var exposureProblem: String? {
        guard !bindsLoopbackOnly, token == nil, !insecureNoToken else { return nil }
        return "the control API is bound to \(address), beyond loopback, without a token: give --control-token "
            + "(or MOCK_APNS_CONTROL_TOKEN, or control.token), or --control-insecure-no-token to run it open"
    }
}
