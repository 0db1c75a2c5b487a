import APNsCore
import HTTPFields

/// Everything fault rules can match on for one push: what validation parsed, where it arrived,
/// who sent it, and when. Build it only when `FaultEngine.isArmed` (it copies headers and body).
public struct FaultContext: Sendable {
    /// The device token from `:path`, lowercase (`ValidationResult.deviceToken`).
    public var token: String?
    /// `apns-topic`, or the default topic applied.
    public var topic: String?
    /// `apns-push-type` exactly as sent.
    public var pushTypeSent: String?
    /// The push type sent when valid, else inferred (`ValidationResult.pushType`).
    public var pushType: PushType?
    /// `apns-priority` (10 when absent; nil when invalid).
    public var priority: Int?
    /// The listener's name and environment.
    public var listener: String
    public var environment: APNsEnvironment
    /// The provider token's Key ID and Team ID, when a token was parsed.
    public var keyID: String?
    public var teamID: String?
    /// The connection's id (`PushOrigin.id`).
    public var connectionID: UInt64
    /// The connection's rank in order of acceptance, 1-based (`match.nthConnection`).
    public var connectionOrdinal: UInt64
    /// Request headers, names lowercase, in arrival order.
    public var headers: [HeaderField]
    /// The body exactly as received; parsed only when a rule has payload conditions.
    public var payload: [UInt8]
    /// The request's time, milliseconds since the Unix epoch (time windows, lifetimes, rate
    /// limits, and the default 410 `timestamp`).
    public var nowMilliseconds: Int64
    /// A device push, a channel-management request or a broadcast send (`RequestKind`, by the path).
    public var kind: RequestKind
    /// The channel a channel or broadcast request names (`RequestKind.channelID`).
    public var channelID: String?
    /// The protocol it came by: `http2`, or `binary` for the legacy binary gateway
    /// (`FaultMatch.transport`). Default `http2`.
    public var transport: TransportProtocol = .http2

    public init(
        token: String? = nil, topic: String? = nil, pushTypeSent: String? = nil, pushType: PushType? = nil,
        priority: Int? = nil, listener: String, environment: APNsEnvironment, keyID: String? = nil,
        teamID: String? = nil, connectionID: UInt64, connectionOrdinal: UInt64? = nil,
        headers: [HeaderField] = [], payload: [UInt8] = [], nowMilliseconds: Int64, kind: RequestKind = .push,
        channelID: String? = nil
    ) {
        self.kind = kind
        self.channelID = channelID
        self.token = token
        self.topic = topic
        self.pushTypeSent = pushTypeSent
        self.pushType = pushType
        self.priority = priority
        self.listener = listener
        self.environment = environment
        self.keyID = keyID
        self.teamID = teamID
        self.connectionID = connectionID
        self.connectionOrdinal = connectionOrdinal ?? connectionID
        self.headers = headers
        self.payload = payload
        self.nowMilliseconds = nowMilliseconds
    }

    /// The context of a validated request.
    /// - Parameters:
    ///   - connectionOrdinal: the connection's rank in order of acceptance; default
    ///     `connection.id`, which counts connections from 1 in that order.
    ///   - identity: the credential identity, for `keyId` and `teamId`.
    ///   - nowMilliseconds: the request's time, milliseconds since the Unix epoch.
    public init(
        verdict: ValidationResult, request: HTTP2Request, connection: PushOrigin, connectionOrdinal: UInt64? = nil,
        identity: CredentialIdentity? = nil, nowMilliseconds: Int64
    ) {
        self.init(
            token: verdict.deviceToken, topic: verdict.topic, pushTypeSent: verdict.pushTypeSent,
            pushType: verdict.pushType, priority: verdict.priority, listener: connection.listener,
            environment: connection.environment, keyID: identity?.keyID, teamID: identity?.teamID,
            connectionID: connection.id, connectionOrdinal: connectionOrdinal, headers: request.headers,
            payload: request.body, nowMilliseconds: nowMilliseconds, kind: RequestKind(path: request.path))
        channelID = kind.channelID(path: request.path, headers: request.headers)
    }
}
