import APNsCore
import Foundation
import HTTPFields
import JSONInput
import JSONSupport

/// The parameters of a `goaway` fault: an HTTP/2 GOAWAY frame, then (by default) the end of the
/// connection (docs/apns-behaviour.md §6; docs/field-cases.md C1, C2).
///
/// JSON: `{"type": "goaway", "errorCode": "NO_ERROR", "lastStreamId": 0,
/// "reason": "BadCertificateEnvironment", "closeAfterMs": 0, "keepOpen": false,
/// "when": "before-response", "secondBareGoaway": false}`; every field is optional.
public struct GoawayFault: Sendable, Hashable {
    /// Default NO_ERROR.
    public var errorCode: HTTP2ErrorCode
    /// The frame's last-stream-id; nil: the highest stream the connection has processed when the
    /// frame is sent (docs/field-cases.md C1). 0 for "nothing was processed" (C2).
    public var lastStreamID: Int32?
    /// Debug data `{"reason":"<reason>"}`, as APNs sends (e.g. `Shutdown`, `BadCertificateEnvironment`,
    /// or any other text). Exclusive with `debugData`.
    public var reason: String?
    /// Raw debug data (UTF-8), e.g. `Maximum active streams violated for this endpoint.`.
    public var debugData: String?
    /// How long the socket stays open after the GOAWAY before the server closes it, in
    /// milliseconds; meanwhile new HEADERS are ignored (C1). Default 0: close once written.
    public var closeAfterMs: Int64
    /// True: the server never closes the socket; new streams are ignored. Exclusive with a
    /// non-zero `closeAfterMs`.
    public var keepOpen: Bool
    /// Whether the triggering stream is answered first (`after-response`) or left unanswered
    /// (`before-response`, the default; with the default last-stream-id it is above it, so a
    /// correct sender retries it on a new connection).
    public var when: ResponseTiming
    /// Send a second GOAWAY with the same last-stream-id and no debug data right after the first
    /// (observed with BadCertificateEnvironment, C2).
    public var secondBareGoaway: Bool

    public init(
        errorCode: HTTP2ErrorCode = .noError, lastStreamID: Int32? = nil, reason: String? = nil,
        debugData: String? = nil, closeAfterMs: Int64 = 0, keepOpen: Bool = false,
        when: ResponseTiming = .beforeResponse, secondBareGoaway: Bool = false
    ) {
        self.errorCode = errorCode
        self.lastStreamID = lastStreamID
        self.reason = reason
        self.debugData = debugData
        self.closeAfterMs = closeAfterMs
        self.keepOpen = keepOpen
        self.when = when
        self.secondBareGoaway = secondBareGoaway
    }

    /// The frame's debug data bytes: `{"reason":"X"}` (JSON-escaped), the raw `debugData`, or none.
    public var debugBytes: [UInt8] {
        if let reason { return ReasonJSON.bytes(reason) }
        return debugData.map { Array($0.utf8) } ?? []
    }

    /// The transport's `closeAfter`: seconds until the socket is closed, nil to keep it open.
    public var closeAfterSeconds: Double? { keepOpen ? nil : Double(closeAfterMs) / 1000 }

    /// `GOAWAY NO_ERROR (0) last-stream-id 0 reason Shutdown, close after 0 ms`.
    public var summary: String {
        var text = "GOAWAY \(errorCode)"
        if let lastStreamID { text += " last-stream-id \(lastStreamID)" }
        if let reason { text += " reason \(reason)" }
        if let debugData { text += " debug data \(InputError.quoted(debugData))" }
        if secondBareGoaway { text += " + bare GOAWAY" }
        text += keepOpen ? ", keep open" : ", close after \(closeAfterMs) ms"
        if when == .afterResponse { text += ", after the response" }
        return text
    }

    func validate(at path: String) throws(FaultRuleError) {
        if let lastStreamID, lastStreamID < 0 {
            throw FaultRuleError(
                field: FaultRuleError.join(path, "lastStreamId"),
                message: "must be 0 to 2147483647, got \(lastStreamID)")
        }
        if reason != nil && debugData != nil {
            throw FaultRuleError(
                field: FaultRuleError.join(path, "debugData"), message: "give either reason or debugData, not both")
        }
        if let problem = GoawayDebugDataLimit.problem(debugBytes) {
            throw FaultRuleError(
                field: FaultRuleError.join(path, reason != nil ? "reason" : "debugData"), message: problem)
        }
        guard (0...FaultLimits.maxMilliseconds).contains(closeAfterMs) else {
            throw FaultRuleError(
                field: FaultRuleError.join(path, "closeAfterMs"),
                message: "must be 0 to \(FaultLimits.maxMilliseconds) milliseconds, got \(closeAfterMs)")
        }
        if keepOpen && closeAfterMs != 0 {
            throw FaultRuleError(
                field: FaultRuleError.join(path, "keepOpen"),
                message: "cannot be combined with closeAfterMs (keepOpen never closes)")
        }
    }

    static let keys = [
        "errorCode", "lastStreamId", "reason", "debugData", "closeAfterMs", "keepOpen", "when", "secondBareGoaway",
    ]

    init(reading object: FaultObjectReader) throws {
        self.init(
            errorCode: try object.optional("errorCode", HTTP2ErrorCode.self, expected: HTTP2ErrorCode.expected)
                ?? .noError,
            lastStreamID: try object.optional("lastStreamId", Int32.self, expected: "a stream id from 0 to 2147483647"),
            reason: try object.optional("reason", String.self, expected: "a string"),
            debugData: try object.optional("debugData", String.self, expected: "a string"),
            closeAfterMs: try object.optional("closeAfterMs", Int64.self, expected: "an integer of milliseconds") ?? 0,
            keepOpen: try object.optional("keepOpen", Bool.self, expected: "true or false") ?? false,
            when: try object.optional(
                "when", ResponseTiming.self, expected: "\"before-response\" or \"after-response\"")
                ?? .beforeResponse,
            secondBareGoaway: try object.optional("secondBareGoaway", Bool.self, expected: "true or false") ?? false)
        try object.validated { () throws(FaultRuleError) in try validate(at: object.path) }
    }

    func write(into container: inout KeyedEncodingContainer<FaultCodingKey>) throws {
        try container.encode(errorCode, forKey: FaultCodingKey("errorCode"))
        try container.encodeIfPresent(lastStreamID, forKey: FaultCodingKey("lastStreamId"))
        try container.encodeIfPresent(reason, forKey: FaultCodingKey("reason"))
        try container.encodeIfPresent(debugData, forKey: FaultCodingKey("debugData"))
        try container.encode(closeAfterMs, forKey: FaultCodingKey("closeAfterMs"))
        try container.encode(keepOpen, forKey: FaultCodingKey("keepOpen"))
        try container.encode(when, forKey: FaultCodingKey("when"))
        try container.encode(secondBareGoaway, forKey: FaultCodingKey("secondBareGoaway"))
    }
}
