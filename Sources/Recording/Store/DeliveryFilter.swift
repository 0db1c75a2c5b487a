import APNsCore
import JSONInput
import JSONSupport

/// Which delivery records a query or wait wants. Every field is optional; set fields must all
/// match (AND). The same names are the control API's query parameters.
public struct DeliveryFilter: Sendable, Equatable {
    /// Device token, lowercase; matches `verdict.deviceToken`.
    public var token: String?
    /// Exact `apns-topic` (or the default topic applied).
    public var topic: String?
    /// Matches the push type as sent (`apns-push-type`, exactly) or the inferred one.
    public var pushType: String?
    /// The HTTP status answered.
    public var status: Int?
    /// The reason answered.
    public var reason: Reason?
    /// The `apns-id` answered, compared case-insensitively.
    public var apnsID: String?
    /// Exact `apns-collapse-id`.
    public var collapseID: String?
    /// The listener's environment.
    public var environment: APNsEnvironment?
    /// Only records with a sequence number greater than this.
    public var after: UInt64?
    /// Only records of streams that got no HTTP answer (`status` null): any of them, or those
    /// that ended so for one cause (`DeliveryRecord.unanswered`).
    public var unanswered: Unanswered?
    /// The request's kind (`push`, `channel`, `broadcast`; `DeliveryRecord.kind`).
    public var kind: RequestKind?
    /// Exact channel ID a channel or broadcast request named (`DeliveryRecord.channelID`), or
    /// the channel the create recorded as `channelCreateSeq` made.
    public var channelID: String?
    /// The seq of the record of the create that made `channelID` (the channel store knows it:
    /// `ChannelStore.createSeq(of:)`): that record matches `channelID` too, though its request
    /// named no channel (docs/broadcast.md §4). Set by whoever holds the channel store (the
    /// control API); nil: only records whose request named `channelID` match it.
    public var channelCreateSeq: UInt64?
    /// Exact name of the listener the request came to (an HTTP/2, binary or feedback listener).
    public var listener: String?
    /// The protocol it came by (`DeliveryRecord.transportProtocol`: `http2` or `binary`).
    public var transportProtocol: TransportProtocol?

    /// What the `unanswered` parameter asks for: `any`, or a cause such as `connection-closed`.
    public enum Unanswered: Sendable, Equatable {
        /// Every record of a stream that ended with no answer, whatever the cause; not a pending
        /// one (`status` and `unanswered` both null: its answer is held and may yet be sent).
        case any
        /// Records that ended unanswered for this cause.
        case cause(UnansweredCause)
        /// Records whose answer is still held (`status` and `unanswered` both null): a delay
        /// running, or a stream stalled by `noResponse` until its connection ends.
        case pending
    }

    /// Creates a filter; `token` and `apnsID` are lowercased.
    public init(
        token: String? = nil, topic: String? = nil, pushType: String? = nil, status: Int? = nil,
        reason: Reason? = nil, apnsID: String? = nil, collapseID: String? = nil,
        environment: APNsEnvironment? = nil, after: UInt64? = nil
    ) {
        self.token = token?.lowercased()
        self.topic = topic
        self.pushType = pushType
        self.status = status
        self.reason = reason
        self.apnsID = apnsID?.lowercased()
        self.collapseID = collapseID
        self.environment = environment
        self.after = after
    }

    /// The query parameter names the filter reads, in documentation order.
    public static let queryParameterNames = [
        "token", "topic", "pushType", "status", "reason", "apnsId", "collapseId", "environment", "after",
        "unanswered", "kind", "channelId", "listener", "protocol",
    ]

    /// Parses the filter parameters from `query` (other names are ignored: the router rejects
    /// unknown ones). Throws a 400 `ControlError` naming the parameter for an empty value, a
    /// non-integer `status` or `after`, an unknown `reason` or `environment`.
    public init(query: [String: String]) throws(ControlError) {
        func text(_ name: String) throws(ControlError) -> String? {
            guard let value = query[name] else { return nil }
            if value.isEmpty { throw .badRequest("\(name) must not be empty") }
            return value
        }
        self.init()
        token = try text("token")?.lowercased()
        topic = try text("topic")
        pushType = try text("pushType")
        if let value = try text("status") {
            guard let status = Int(value) else { throw .badRequest("status must be an integer") }
            guard (100...599).contains(status) else {
                // /v1/stats counts streams without an answer under "0": point at their filter.
                throw .badRequest(
                    status == 0
                        ? "status must be between 100 and 599; streams that got no answer (stats' \"0\") are unanswered=any"
                        : "status must be between 100 and 599")
            }
            self.status = status
        }
        if let value = try text("reason") {
            // Accept any letter case: reasons are easy to mistype as lowercase in a URL.
            guard
                let reason = Reason.allCases.first(where: {
                    $0.rawValue.lowercased() == value.lowercased()
                })
            else {
                throw .badRequest(
                    "reason must be an APNs reason, one of: "
                        + Reason.allCases.map(\.rawValue).joined(separator: ", "))
            }
            self.reason = reason
        }
        apnsID = try text("apnsId")?.lowercased()
        collapseID = try text("collapseId")
        if let value = try text("environment") {
            guard let environment = APNsEnvironment(rawValue: value.lowercased()) else {
                throw .badRequest("environment must be sandbox or production")
            }
            self.environment = environment
        }
        if let value = try text("after") {
            guard let after = UInt64(value) else {
                throw .badRequest("after must be a non-negative integer (a seq)")
            }
            self.after = after
        }
        if let value = try text("kind") {
            guard let kind = RequestKind(rawValue: value) else {
                throw .badRequest(
                    "kind must be one of \(RequestKind.allCases.map(\.rawValue).joined(separator: ", ")), got '\(value)'"
                )
            }
            self.kind = kind
        }
        channelID = try text("channelId")
        listener = try text("listener")
        if let value = try text("protocol") {
            guard let parsed = TransportProtocol(rawValue: value) else {
                throw .badRequest(
                    "protocol must be one of \(TransportProtocol.allCases.map(\.rawValue).joined(separator: ", ")), "
                        + "got '\(value)'")
            }
            transportProtocol = parsed
        }
        if let value = try text("unanswered") {
            if value == "any" {
                unanswered = .any
            } else if value == "pending" {
                unanswered = .pending
            } else if let cause = UnansweredCause(rawValue: value) {
                unanswered = .cause(cause)
            } else {
                let names = ["any", "pending"] + UnansweredCause.allCases.map(\.rawValue)
                throw .badRequest(
                    "unanswered must be one of \(names.joined(separator: ", ")), got '\(value)'"
                        + ClosestMatch.hint(value, among: names, quote: { "'\($0)'" }))
            }
        }
    }

    /// Whether `record` passes every set field.
    public func matches(_ record: borrowing DeliveryRecord) -> Bool {
        if let after, record.seq <= after { return false }
        if let status, record.status != status { return false }
        switch unanswered {
        case nil: break
        // A pending record (a held answer, `unanswered` null) is not unanswered: it may yet be.
        case .any: if record.status != 0 || record.unanswered == nil { return false }
        case .pending: if record.status != 0 || record.unanswered != nil { return false }
        case .cause(let cause): if record.unanswered != cause { return false }
        }
        if let reason, record.reason != reason { return false }
        if let environment, record.environment != environment { return false }
        // Byte comparisons: `!=` would match canonically equivalent text a client sent differently.
        if let token, !UTF8Bytes.equal(record.verdict.deviceToken, token) { return false }
        if let topic, !UTF8Bytes.equal(record.verdict.topic, topic) { return false }
        if let pushType, !UTF8Bytes.equal(record.verdict.pushTypeSent, pushType),
            record.verdict.pushType?.rawValue != pushType
        {
            return false
        }
        if let collapseID, !UTF8Bytes.equal(record.verdict.collapseID, collapseID) { return false }
        if let apnsID, !Self.equalIgnoringASCIICase(record.apnsID, apnsID) { return false }
        if let kind, record.kind != kind { return false }
        if let channelID, !Self.namesChannel(record.channelID, seq: record.seq, channelID, createSeq: channelCreateSeq)
        {
            return false
        }
        if let listener, !UTF8Bytes.equal(record.listener, listener) { return false }
        if let transportProtocol, record.transportProtocol != transportProtocol { return false }
        return true
    }

    /// Whether a record (seq `seq`, naming `recorded`) is one of channel `channelID`: its request
    /// named it, or it is the record of the create that made it (`createSeq`).
    static func namesChannel(_ recorded: String?, seq: UInt64, _ channelID: String, createSeq: UInt64?) -> Bool {
        seq == createSeq || UTF8Bytes.equal(recorded, channelID)
    }

    /// `lowercased` is the lowercase form already; compares without allocating.
    private static func equalIgnoringASCIICase(_ value: String, _ lowercased: String) -> Bool {
        var a = value.utf8.makeIterator()
        var b = lowercased.utf8.makeIterator()
        while true {
            switch (a.next(), b.next()) {
            case (nil, nil): return true
            case let (x?, y?):
                let lower = (x >= 0x41 && x <= 0x5A) ? x + 0x20 : x
                if lower != y { return false }
            default: return false
            }
        }
    }
}
