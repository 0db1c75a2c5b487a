import APNsCore
import LegacyBinary

/// A listener of the legacy binary provider API (`binary`, Apple's port 2195) or of the feedback
/// service (`feedback`, Apple's port 2196); off unless configured (`--binary`, `--feedback`, the
/// file's `binary` and `feedback`; docs/legacy-binary.md §5). Both speak TLS 1.2/1.3 with the
/// certificate, key and client CAs of the first HTTP/2 listener (one certificate for every
/// listener, as Apple's gateway and feedback service took the same one).
public struct BinaryListenerConfiguration: Sendable, Equatable {
    /// Which service the listener plays.
    public enum Kind: String, Sendable, CaseIterable {
        /// The binary gateway: commands 0, 1, 2 in, error packets out.
        case binary
        /// The feedback service: tuples out on connect, then close.
        case feedback
    }

    /// How a notification to a token the registry says is unregistered, of the other
    /// environment, or (closed registry) unknown is answered.
    public enum UnregisteredAnswer: String, Sendable, CaseIterable {
        /// Error packet status 8, invalid token (the status Apple's table has for it).
        case invalidToken = "invalid-token"
        /// No answer: accepted silently (Apple queued an entry for the feedback service instead).
        case accept
    }

    /// What becomes of a connection whose verified client certificate is not for the listener's
    /// environment (a Development certificate, `…6.3.1`, on a production `gateway.push`; an
    /// Apple Push Services one without `…6.3.1` on `gateway.sandbox`).
    public enum CertificateEnvironmentAnswer: String, Sendable, CaseIterable {
        /// Closed right after the TLS handshake, with no packet (the default: what senders of the
        /// time reported, a connection that drops with nothing delivered; Apple documented
        /// nothing for the binary API, its HTTP/2 one answers BadCertificateEnvironment).
        case close
        /// Served as if it were for this environment.
        case accept
    }

    /// Which service it plays.
    public var kind: Kind
    /// Names the listener in records and events. Default: the kind's name.
    public var name: String
    /// Address to bind. Default `127.0.0.1`.
    public var host: String
    /// TCP port; 0 binds an ephemeral port. Default 2195 (binary) or 2196 (feedback).
    public var port: Int
    /// The APNs environment it plays. Default `sandbox`.
    public var environment: APNsEnvironment
    /// When the first listener asks for client certificates (client CAs configured): true
    /// closes, right after the handshake, a connection without a verified certificate; false
    /// serves it (its topic is then missing: status 3). Default true.
    public var certificateRequired: Bool
    /// The binary gateway's frame limits. Default `BinaryLimits()` (Apple's).
    public var limits: BinaryLimits
    /// How unregistered, other-environment and (closed registry) unknown tokens are answered.
    /// Default `.invalidToken`.
    public var unregistered: UnregisteredAnswer
    /// The topic of notifications on connections whose client certificate names none, or that
    /// present none (`certificateRequired` false, or no client CAs). Default nil: they have no
    /// topic, status 3 (missing topic), as on Apple's gateway, where every connection had a
    /// certificate.
    public var topic: String?
    /// Seconds a connection may send nothing before it is closed (FIN, no packet: Apple's gateway
    /// sent none for it); nil takes the server's `idleTimeoutSeconds` (`--idle-timeout`, none by
    /// default). Old senders (PyAPNs) kept a connection open for tens of seconds between bursts.
    public var idleTimeoutSeconds: Double?
    /// What becomes of a connection whose certificate is for the other environment. Default
    /// `.close` (docs/legacy-binary.md §8).
    public var certificateEnvironment: CertificateEnvironmentAnswer = .close
    /// Connections open at once on the listener, 1 to 100,000; one more is closed at once (TCP
    /// reset), before the TLS handshake, and counted (a connection event `refused`). Default 1,000: one event
    /// loop thread serves these listeners, and each connection holds a descriptor.
    public var maxConnections: Int

    /// Creates a listener of `kind`; every other parameter defaults as documented on its property.
    public init(
        kind: Kind, name: String? = nil, host: String = "127.0.0.1", port: Int? = nil,
        environment: APNsEnvironment = .sandbox, certificateRequired: Bool = true,
        limits: BinaryLimits = BinaryLimits(),
        unregistered: UnregisteredAnswer = .invalidToken, topic: String? = nil,
        idleTimeoutSeconds: Double? = nil, maxConnections: Int = 1000
    ) {
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.maxConnections = maxConnections
        self.kind = kind
        self.name = name ?? kind.rawValue
        self.host = host
        self.port = port ?? (kind == .binary ? 2195 : 2196)
        self.environment = environment
        self.certificateRequired = certificateRequired
        self.limits = limits
        self.unregistered = unregistered
        self.topic = topic
    }

    /// `host:port`, with IPv6 hosts in brackets.
    public var address: String { HostPort(host: host, port: port).description }
}
