import HTTPFields

/// What `BroadcastService.handle` decided for one request: the response to send and what the
/// record keeps (docs/broadcast.md §3).
public struct BroadcastAnswer: Sendable, Equatable {
    /// 200, 201, 204, or the reason's status.
    public var status: Int
    /// Nil when accepted.
    public var reason: BroadcastReason?
    /// Nil when the path or method had no route (`BadPath`, `MethodNotAllowed`).
    public var route: BroadcastRoute?
    /// The `apns-request-id` answered: the one sent, or a new lowercase UUID.
    public var requestID: String
    /// The header the request ID came in (`apns-request-id` or `apns-id`), nil when generated
    /// (also when the one sent was malformed).
    public var requestIDHeader: String?
    /// The channel the request named or made, when it named or made one.
    public var channelID: String?
    /// The channel, when it exists: the one read, deleted, broadcast to, or created.
    public var channel: Channel?
    /// A broadcast's `apns-priority` (10 when absent), nil when not a send or not valid.
    public var priority: Int?
    /// A broadcast's `apns-expiration` in Unix seconds, nil when absent or not a send.
    public var expiration: Int64?
    /// The payload lints of a broadcast (recorded even when accepted).
    public var lints: [ActivityKitLint]
    /// The response's header fields (`content-type` on errors and bodies, `apns-request-id`,
    /// `apns-channel-id` on a create).
    public var headers: [HeaderField]
    /// The response body: `{"reason":...}`, a channel, a channel list, or empty.
    public var body: [UInt8]

    public init(
        status: Int, reason: BroadcastReason?, route: BroadcastRoute?, requestID: String,
        requestIDHeader: String?, channelID: String? = nil, channel: Channel? = nil, priority: Int? = nil,
        expiration: Int64? = nil, lints: [ActivityKitLint] = [], headers: [HeaderField], body: [UInt8]
    ) {
        self.status = status
        self.reason = reason
        self.route = route
        self.requestID = requestID
        self.requestIDHeader = requestIDHeader
        self.channelID = channelID
        self.channel = channel
        self.priority = priority
        self.expiration = expiration
        self.lints = lints
        self.headers = headers
        self.body = body
    }

    /// Whether the request was accepted (2xx).
    public var accepted: Bool { reason == nil }
}
