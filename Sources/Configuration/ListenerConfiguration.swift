import APNsCore
import Faults

/// One APNs listening socket: where it binds, which environment it plays, and how it speaks TLS.
public struct ListenerConfiguration: Sendable, Equatable {
    /// Names the listener in delivery records, logs and the control API. Unique within a
    /// configuration. Default `"default"`; the config file defaults it to the environment name.
    public var name: String
    /// Address to bind: an IPv4 or IPv6 literal (IPv6 without brackets) or a host name.
    /// Default `127.0.0.1`.
    public var host: String
    /// TCP port, 0 to 65535; 0 binds an ephemeral port. Default 2197 (Apple's alternative APNs port).
    public var port: Int
    /// The APNs environment this listener plays. Default `sandbox`.
    public var environment: APNsEnvironment
    /// When true, HTTP/2 is spoken in cleartext with prior knowledge (no TLS); the TLS paths
    /// must then be `nil`. Default false.
    public var plaintext: Bool
    /// PEM certificate (chain) file. `nil` together with `tlsKeyPath`: an ephemeral self-signed
    /// certificate is made in memory at start. Default `nil`.
    public var tlsCertificatePath: String?
    /// PEM private key file for `tlsCertificatePath`; set both or neither. Default `nil`.
    public var tlsKeyPath: String?
    /// Whether clients must offer ALPN `h2`. Default `.optional`.
    public var alpn: ALPNPolicy
    /// How provider authentication (tokens and client certificates) is checked. Default
    /// `.permissive`.
    public var auth: AuthModeSetting
    /// PEM files of the certificate authorities whose client certificates this listener trusts.
    /// Non-empty turns on mutual TLS: the listener asks each client for a certificate. Not
    /// allowed on a plaintext listener. Default `[]` (no client certificates are asked for).
    public var clientCAPaths: [String]
    /// Conditions for new connections from start (handshake delay, silent accept, refusal;
    /// docs/field-cases.md C15), as `PUT /v1/listeners/{name}/conditions` would set them; a refusal counts
    /// from start. Default `nil`: connections are served normally.
    public var conditions: ListenerConditionsUpdate?

    /// Creates a listener; every parameter defaults as documented on its property.
    public init(
        name: String = "default", host: String = "127.0.0.1", port: Int = 2197,
        environment: APNsEnvironment = .sandbox, plaintext: Bool = false,
        tlsCertificatePath: String? = nil, tlsKeyPath: String? = nil,
        alpn: ALPNPolicy = .optional, auth: AuthModeSetting = .permissive,
        clientCAPaths: [String] = [], conditions: ListenerConditionsUpdate? = nil
    ) {
        self.name = name
        self.host = host
        self.port = port
        self.environment = environment
        self.plaintext = plaintext
        self.tlsCertificatePath = tlsCertificatePath
        self.tlsKeyPath = tlsKeyPath
        self.alpn = alpn
        self.auth = auth
        self.clientCAPaths = clientCAPaths
        self.conditions = conditions
    }

    /// `host:port`, with IPv6 hosts in brackets (`[::1]:2197`).
    public var address: String { HostPort(host: host, port: port).description }
}
