/// What validation concluded about one request: the APNs answer plus everything parsed on the
/// way, so the record can be built without parsing twice. Produced by `RequestValidator`.
public struct Verdict: Sendable, Equatable {
    /// The rejection reason, or `nil` when the push is accepted (status 200).
    public var reason: Reason?
    /// For 410 answers: when the device token stopped being valid, in milliseconds since the
    /// Unix epoch (sent as the body's `timestamp`).
    public var timestamp: Int64?
    /// The device token from `:path`, lowercased; `nil` when the path carried none.
    public var deviceToken: String?
    /// `apns-topic` as sent, or the default topic applied.
    public var topic: String?
    /// `apns-push-type` exactly as sent.
    public var pushTypeSent: String?
    /// The push type used for the rules: the one sent when valid, else the one inferred from
    /// the payload (background for content-available-only, else alert).
    public var pushType: PushType?
    /// `apns-priority` (10, 5 or 1); 10 when absent.
    public var priority: Int?
    /// `apns-expiration` in Unix epoch seconds.
    public var expiration: Int64?
    /// `apns-collapse-id` as sent.
    public var collapseID: String?
    /// `apns-id` as sent and valid; `nil` when absent or invalid (the gateway then generates one).
    public var apnsID: String?
    /// Payload lint warnings: each names the Apple rule it refers to.
    public var lints: [String]
    /// The JSON parser's message when the body is not a JSON object.
    public var payloadError: String?

    /// The HTTP status to answer: 200 when accepted, else the reason's status.
    public var status: Int { reason?.status ?? 200 }

    public init(reason: Reason? = nil, timestamp: Int64? = nil, deviceToken: String? = nil,
                topic: String? = nil, pushTypeSent: String? = nil, pushType: PushType? = nil,
                priority: Int? = nil, expiration: Int64? = nil, collapseID: String? = nil,
                apnsID: String? = nil, lints: [String] = [], payloadError: String? = nil) {
        self.reason = reason
        self.timestamp = timestamp
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushTypeSent = pushTypeSent
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.lints = lints
        self.payloadError = payloadError
    }
}
