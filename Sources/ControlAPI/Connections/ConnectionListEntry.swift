import APNsCore
import Faults

/// One live APNs connection as the control API lists it (`GET /v1/connections`): HTTP/2, or a
/// legacy binary gateway or feedback connection (docs/legacy-binary.md §8).
public struct ConnectionListEntry: Sendable, Equatable, Encodable {
    /// Connection id (see `PushOrigin.id`).
    public var id: UInt64
    /// The peer as `host:port`.
    public var peer: String
    /// The listener's name and environment.
    public var listener: String
    public var environment: APNsEnvironment
    /// `h2` when negotiated by ALPN, nil otherwise (prior knowledge or cleartext).
    public var alpn: String?
    /// True over TLS.
    public var tls: Bool
    /// The authenticated identity so far: `token` with key and team once a push was accepted,
    /// `certificate` with the subject, or `none`.
    public var auth: String
    /// Streams open now.
    public var openStreams: Int
    /// The MAX_CONCURRENT_STREAMS this server announced last.
    public var maxConcurrentStreams: UInt32
    /// Requests completed on the connection.
    public var requests: UInt64
    /// Milliseconds since the connection was accepted.
    /// (Legacy connections: `requests` counts the notifications read, `openStreams` and
    /// `maxConcurrentStreams` are 0.)
    public var ageMilliseconds: Int64
    /// Whether it still takes new streams.
    public var state: State
    /// JSON `protocol`: `http2`, or `binary` / `feedback` for the legacy binary gateway and
    /// feedback service (docs/legacy-binary.md §8).
    public var transport: String
    /// A legacy connection's verified client certificate subject (RFC 2253), nil without one and
    /// on HTTP/2 (whose `auth` names it).
    public var certificateSubject: String?
    /// The topic a binary connection's notifications are judged with (from the certificate, else
    /// the listener's `topic`); nil on HTTP/2, feedback, or when there is none.
    public var topic: String?
    /// What a legacy connection carried; nil on HTTP/2.
    public var legacy: LegacyConnectionCounts?

    /// What a connection does with what arrives now. JSON `state`: `open`, `goneAway` (a GOAWAY
    /// was sent, by a fault, command, drain or rolling restart: streams above its last-stream-id
    /// are ignored), `blackholed` (nothing is answered, what arrives is dropped), `closing` (a
    /// legacy connection whose end is decided: its error packet or FIN was sent, what still
    /// arrives is read and recorded as discarded).
    public enum State: String, Sendable, Equatable, Encodable {
        case open
        case goneAway
        case blackholed
        case closing
    }

    public init(
        id: UInt64, peer: String, listener: String, environment: APNsEnvironment, alpn: String?, tls: Bool,
        auth: String, openStreams: Int, maxConcurrentStreams: UInt32, requests: UInt64, ageMilliseconds: Int64,
        state: State = .open, transport: String = "http2", certificateSubject: String? = nil, topic: String? = nil,
        legacy: LegacyConnectionCounts? = nil
    ) {
        self.transport = transport
        self.certificateSubject = certificateSubject
        self.topic = topic
        self.legacy = legacy
        self.id = id
        self.peer = peer
        self.listener = listener
        self.environment = environment
        self.alpn = alpn
        self.tls = tls
        self.auth = auth
        self.openStreams = openStreams
        self.maxConcurrentStreams = maxConcurrentStreams
        self.requests = requests
        self.ageMilliseconds = ageMilliseconds
        self.state = state
    }

    private enum CodingKeys: String, CodingKey {
        case id, peer, listener, environment, alpn, tls, auth, openStreams, maxConcurrentStreams, requests, ageMs, state
        case certificateSubject, topic, legacy
        case transport = "protocol"
    }

    /// Every key present, `null` when absent.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(peer, forKey: .peer)
        try container.encode(listener, forKey: .listener)
        try container.encode(environment, forKey: .environment)
        try container.encode(alpn, forKey: .alpn)
        try container.encode(tls, forKey: .tls)
        try container.encode(auth, forKey: .auth)
        try container.encode(openStreams, forKey: .openStreams)
        try container.encode(maxConcurrentStreams, forKey: .maxConcurrentStreams)
        try container.encode(requests, forKey: .requests)
        try container.encode(ageMilliseconds, forKey: .ageMs)
        try container.encode(state, forKey: .state)
        try container.encode(transport, forKey: .transport)
        try container.encode(certificateSubject, forKey: .certificateSubject)
        try container.encode(topic, forKey: .topic)
        try container.encode(legacy, forKey: .legacy)
    }
}

/// What the control API can do to one live connection now (`POST /v1/connections/{id}/...`).
public enum ConnectionCommand: Sendable, Equatable {
    /// GOAWAY with the error code (0 = NO_ERROR), last-stream-id = highest processed, debug data
    /// `{"reason":...}` when a reason is given; the socket closes after `closeAfterMilliseconds`
    /// (nil: stays open, new streams ignored).
    case goaway(errorCode: UInt32, reason: String?, closeAfterMilliseconds: Int64?)
    /// Close now with a TCP FIN.
    case close
    /// Close now with a TCP RST.
    case reset
    /// Answer nothing from now on and keep the socket open (issue 13).
    case blackhole
    /// GOAWAY NO_ERROR (debug data `{"reason":...}` when a reason is given), answer the streams in
    /// flight, close (FIN) once the last is answered, or after `maxMilliseconds` (issue 13).
    case drain(reason: String?, maxMilliseconds: Int64)
}

/// The live connections, as the transport knows them; implemented by the server assembly.
public protocol ConnectionDirectory: Sendable {
    /// A snapshot of every open connection, by id.
    func connections() -> [ConnectionListEntry]
    /// Names of listeners whose connections it lists besides the HTTP/2 ones (`binary`,
    /// `feedback`), so `?listener=` accepts them. Default: none.
    var otherListenerNames: [String] { get }
    /// Carries out `command` on connection `id`.
    func perform(_ command: ConnectionCommand, onConnection id: UInt64) -> ConnectionCommandOutcome
    /// Schedules `restart`'s drain of every connection whose HTTP/2 session runs now, each
    /// `restart.delayMilliseconds(forConnection: id)` from now (`ConnectionAction.drain`,
    /// recorded with origin `scenario`).
    /// - Returns: the ids of the connections scheduled, ascending.
    func startRollingRestart(_ restart: RollingRestart) -> [UInt64]
    /// The rolling restart started last, while some of its GOAWAYs are still to come; nil
    /// otherwise. The status's `elapsedMs` counts from its start.
    func rollingRestartInProgress() -> RollingRestartRun.Status?
    /// Cancels the rolling restart in progress: the GOAWAYs still to come are not sent (drains
    /// already started go on). Returns whether one was in progress.
    func cancelRollingRestart() -> Bool
}

/// What became of a `ConnectionCommand`.
public enum ConnectionCommandOutcome: Sendable, Equatable {
    /// Carried out.
    case done
    /// No open connection has that id.
    case notFound
    /// The connection cannot take the command now; the message says why (e.g. a GOAWAY to a
    /// connection whose HTTP/2 session has not started).
    case impossible(String)
}

extension ConnectionDirectory {
    /// None: only HTTP/2 listeners.
    public var otherListenerNames: [String] { [] }
}
