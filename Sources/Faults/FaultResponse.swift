import APNsCore
import JSONInput
import JSONSupport

/// The APNs error answer of a `respond` or `sickConnection` fault: `:status`, the body's
/// `reason` and, on 410, its `timestamp` (docs/apns-behaviour.md §2).
///
/// JSON: `{"status": 503, "reason": "ServiceUnavailable"}`; `status` may be left out and is then
/// the reason's own (`Reason.status`); `reason` may be left out when `status` is given and is
/// then Apple's reason for it (`Reason.generic(forStatus:)`: 503 `ServiceUnavailable`, 500
/// `InternalServerError`, 429 `TooManyRequests`, ...; 400 and undocumented statuses need a
/// reason); `timestamp` (milliseconds since the epoch) only with 410.
/// A status that differs from the reason's own is allowed on purpose: senders must cope.
public struct FaultResponse: Sendable, Hashable {
    /// The HTTP status, 400-599.
    public var status: Int
    /// The body's `reason`.
    public var reason: Reason
    /// For 410: the body's `timestamp`, milliseconds since the Unix epoch (docs/field-cases.md C12).
    /// When nil, the engine fills in the request's time (`FaultContext.nowMilliseconds`).
    public var timestamp: Int64?

    /// - Parameter status: defaults to `reason.status`.
    public init(status: Int? = nil, reason: Reason, timestamp: Int64? = nil) {
        self.status = status ?? reason.status
        self.reason = reason
        self.timestamp = timestamp
    }

    /// `503 ServiceUnavailable`, with ` timestamp N` when set.
    public var summary: String {
        var text = "\(status) \(reason.rawValue)"
        if let timestamp { text += " timestamp \(timestamp)" }
        return text
    }

    func validate(at path: String) throws(FaultRuleError) {
        guard (400...599).contains(status) else {
            throw FaultRuleError(field: FaultRuleError.join(path, "status"), message: "must be 400-599, got \(status)")
        }
        if let timestamp {
            guard status == 410 else {
                throw FaultRuleError(
                    field: FaultRuleError.join(path, "timestamp"),
                    message: "only with status 410 (APNs sends a timestamp on 410 alone)")
            }
            guard timestamp >= 0 else {
                throw FaultRuleError(
                    field: FaultRuleError.join(path, "timestamp"),
                    message: "must be milliseconds since the epoch (0 or more), got \(timestamp)")
            }
        }
    }

    static let keys = ["status", "reason", "timestamp"]

    /// Reads `status`, `reason` and `timestamp` from an action object whose keys were checked.
    init(reading object: FaultObjectReader) throws {
        let status = try object.optional("status", Int.self, expected: "an integer from 400 to 599")
        let reason: Reason
        if let reasonText = try object.optional(
            "reason", String.self, expected: "an APNs reason such as \"ServiceUnavailable\"")
        {
            guard let named = Reason(rawValue: reasonText) else {
                let names = Reason.allCases.map(\.rawValue)
                let near = ClosestMatch.hint(reasonText, among: names)
                throw object.error(
                    "reason",
                    "unknown reason \(InputError.quoted(reasonText))\(near); expected one of \(names.joined(separator: ", "))"
                )
            }
            reason = named
        } else if let status {
            guard (400...599).contains(status) else {
                throw object.error("status", "must be 400-599, got \(status)")
            }
            guard let generic = Reason.generic(forStatus: status) else {
                let documented = Reason.allCases.filter { $0.status == status }.map(\.rawValue)
                let hint =
                    documented.isEmpty
                    ? "Apple documents no reason for \(status)"
                    : "Apple documents no generic reason for \(status); one of \(documented.joined(separator: ", "))"
                throw object.error("reason", "required with status \(status) (\(hint))")
            }
            reason = generic
        } else {
            throw object.error("reason", "required: an APNs reason such as \"ServiceUnavailable\", or a status alone")
        }
        let timestamp = try object.optional(
            "timestamp", Int64.self, expected: "an integer of milliseconds since the epoch")
        self.init(status: status, reason: reason, timestamp: timestamp)
        try object.validated { () throws(FaultRuleError) in try validate(at: object.path) }
    }

    /// Writes `status`, `reason` and `timestamp` (when set) into an action object.
    func write(into container: inout KeyedEncodingContainer<FaultCodingKey>) throws {
        try container.encode(status, forKey: FaultCodingKey("status"))
        try container.encode(reason, forKey: FaultCodingKey("reason"))
        try container.encodeIfPresent(timestamp, forKey: FaultCodingKey("timestamp"))
    }
}
