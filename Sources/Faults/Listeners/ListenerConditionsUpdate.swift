import JSONInput

/// A change to one listener's conditions, every field optional: the body of
/// `PUT /v1/listeners/{name}/conditions`, and a listener's `"conditions"` in the config file
/// (where it applies from start). docs/field-cases.md C15.
///
/// JSON: `{"handshakeDelayMs": 0-600000, "silent": bool, "refuseMs": 0-86400000}`, each
/// optional (absent or `null`: unchanged); decoding checks the ranges and, under
/// `StrictJSONDecoder`, refuses other keys.
public struct ListenerConditionsUpdate: Sendable, Equatable, Decodable {
    /// Milliseconds each new connection waits before its handshake, 0 to 600,000 (10 minutes);
    /// 0 ends a delay. nil: unchanged.
    public var handshakeDelayMs: Int64?
    /// Accept new connections at the TCP level and never answer them. nil: unchanged.
    public var silent: Bool?
    /// Refuse new connections (TCP reset) for this many milliseconds from the moment the update
    /// applies, 0 to 86,400,000 (a day); 0 ends a refusal. nil: unchanged.
    public var refuseMs: Int64?

    /// The accepted range of `handshakeDelayMs`, milliseconds.
    public static let handshakeDelayRange: ClosedRange<Int64> = 0...600_000
    /// The accepted range of `refuseMs`, milliseconds.
    public static let refuseRange: ClosedRange<Int64> = 0...86_400_000
    /// The field names, as in JSON.
    public static let fields = CodingKeys.allCases.map(\.stringValue)

    /// The wire names.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case handshakeDelayMs, silent, refuseMs
    }

    /// Decodes the JSON form; a field out of range is an error naming it and its range
    /// (`handshakeDelayMs: expected an integer from 0 to 600000, got -1`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        handshakeDelayMs = try container.decodeIfPresent(
            Int64.self, forKey: .handshakeDelayMs, in: Self.handshakeDelayRange)
        silent = try container.decodeIfPresent(Bool.self, forKey: .silent)
        refuseMs = try container.decodeIfPresent(Int64.self, forKey: .refuseMs, in: Self.refuseRange)
    }

    public init(handshakeDelayMs: Int64? = nil, silent: Bool? = nil, refuseMs: Int64? = nil) {
        self.handshakeDelayMs = handshakeDelayMs
        self.silent = silent
        self.refuseMs = refuseMs
    }

    /// The first field out of range, as a message naming it and its range; nil when all are in range.
    public var problem: String? {
        if let delay = handshakeDelayMs, !Self.handshakeDelayRange.contains(delay) {
            return "handshakeDelayMs must be 0 to \(Self.handshakeDelayRange.upperBound), got \(delay)"
        }
        if let refuse = refuseMs, !Self.refuseRange.contains(refuse) {
            return "refuseMs must be 0 to \(Self.refuseRange.upperBound), got \(refuse)"
        }
        return nil
    }

    /// `conditions` with this update's fields replaced; a refusal counts from `nowMilliseconds`
    /// (milliseconds since the Unix epoch). Call only when `problem` is nil.
    public func applied(to conditions: ListenerConditions, nowMilliseconds: Int64) -> ListenerConditions {
        var result = conditions
        if let handshakeDelayMs { result.handshakeDelayMs = handshakeDelayMs }
        if let silent { result.silent = silent }
        if let refuseMs { result.refuseUntil = refuseMs == 0 ? nil : nowMilliseconds + refuseMs }
        return result
    }
}
