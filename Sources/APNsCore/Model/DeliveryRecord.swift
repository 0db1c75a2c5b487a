/// One request that reached the application layer, accepted or rejected: what arrived, where,
/// and what MockAPNs answered. Records are immutable once stored, but for one correction: a stream
/// that ends without response HEADERS (`unanswered`, `DeliveryStore.markUnanswered`).
public struct DeliveryRecord: Sendable {
    /// Store sequence number, from 1, strictly increasing.
    public var seq: UInt64
    /// Receive time, seconds since the Unix epoch (rendered ISO 8601 with milliseconds).
    public var receivedAt: Double
    /// The listener's environment.
    public var environment: APNsEnvironment
    /// The listener's name.
    public var listener: String
    /// Connection id (see `PushOrigin.id`).
    public var connectionID: UInt64
    /// HTTP/2 stream id.
    public var streamID: Int32
    /// `:method` and `:path` as received.
    public var method: String
    public var path: String
    /// Everything validation parsed, and its answer.
    public var verdict: ValidationResult
    /// The `apns-id` answered (echoed or generated).
    public var apnsID: String
    /// The `apns-unique-id` answered (sandbox listeners only).
    public var uniqueID: String?
    /// All request headers in arrival order; `authorization` is reduced to `bearer <JWT header>.<JWT claims>`,
    /// never the signature.
    public var headers: [HeaderField]
    /// The body exactly as received (its first bytes only when the transport cut a huge body).
    public var payload: [UInt8]
    /// How many body bytes arrived, in all.
    public var payloadBytes: Int
    /// The status answered (may differ from `verdict.status` when a fault rule answered), or 0
    /// when the stream got no HTTP answer (a fault reset it, stalled it, or ended the connection)
    /// or has not got it yet: 0 with `unanswered` nil is pending (a `delay` holds the answer;
    /// `DeliveryStore.markAnswered` sets the status once the response HEADERS is sent).
    public var status: Int
    /// The reason answered, `nil` on 200.
    public var reason: Reason?
    /// Who sent the push (credential kind, key/team or certificate, verdict); nil when the
    /// listener checks no credentials.
    public var identity: CredentialIdentity?
    /// The fault rule that shaped the answer, and what it did; nil when none applied.
    public var fault: FaultRecord?
    /// Why the stream ended without response HEADERS (then `status` is 0 and `reason` is the
    /// one the record had only when it never had a status); nil while the stream was answered or
    /// is still open. Set after the record was stored, when the transport sees the stream end
    /// (`DeliveryStore.markUnanswered(seq:cause:)`).
    public var unanswered: UnansweredCause?

    @inlinable
    public init(
        seq: UInt64 = 0, receivedAt: Double, environment: APNsEnvironment, listener: String,
        connectionID: UInt64, streamID: Int32, method: String, path: String, verdict: ValidationResult,
        apnsID: String, uniqueID: String?, headers: [HeaderField], payload: [UInt8], payloadBytes: Int? = nil,
        status: Int, reason: Reason?, identity: CredentialIdentity? = nil, fault: FaultRecord? = nil,
        unanswered: UnansweredCause? = nil
    ) {
        self.seq = seq
        self.receivedAt = receivedAt
        self.environment = environment
        self.listener = listener
        self.connectionID = connectionID
        self.streamID = streamID
        self.method = method
        self.path = path
        self.verdict = verdict
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.headers = headers
        self.payload = payload
        self.payloadBytes = payloadBytes ?? payload.count
        self.status = status
        self.reason = reason
        self.identity = identity
        self.fault = fault
        self.unanswered = unanswered
    }
}

extension DeliveryRecord {
    /// A device push, a channel-management request or a broadcast send, by its path.
    public var kind: RequestKind { RequestKind(path: path) }

    /// The channel a channel or broadcast request named: its `apns-channel-id` header, or the
    /// path segment after `/channels/` (APNSwift's older form, percent-decoded); nil for a
    /// device push, a list, and a create (the new channel's ID is in its answer, not its
    /// request).
    public var channelID: String? { kind.channelID(path: path, headers: headers) }

    /// The record header the legacy binary gateway adds with the frame's command
    /// (docs/legacy-binary.md §8): it marks a binary notification's record.
    public static let binaryCommandHeader = "x-mockapns-binary-command"

    /// The protocol the request came by: `binary` for the legacy binary gateway's
    /// notifications (a `binaryCommandHeader` record header), else `http2`. Read from what the
    /// record keeps, so the compact layout is unchanged.
    public var transportProtocol: TransportProtocol {
        headers.contains { $0.name == Self.binaryCommandHeader } ? .binary : .http2
    }
}

/// The fault injected into one request, as its record shows it.
public struct FaultRecord: Sendable, Equatable, Encodable {
    /// The rule's id, e.g. `f2`.
    public var ruleID: String
    /// The action's kind as in the rule JSON, e.g. `respond`, `delay`, `resetStream`, `goaway`.
    public var action: String
    /// What happened, e.g. `rule f2: respond 503 ServiceUnavailable`.
    public var description: String

    /// The JSON keys: `ruleId` on the wire.
    private enum CodingKeys: String, CodingKey {
        case action, description
        case ruleID = "ruleId"
    }

    public init(ruleID: String, action: String, description: String) {
        self.ruleID = ruleID
        self.action = action
        self.description = description
    }
}
