import APNsCore
import HTTPFields

/// What a fault rule does to a matching push (issue "Fault injection"; docs/field-cases.md C1-C16).
///
/// JSON: an object with a `"type"` discriminator and the case's fields:
///
/// | type | fields | effect |
/// |---|---|---|
/// | `respond` | `status`?, `reason`, `timestamp`? | answer this APNs error instead (C7, C12) |
/// | `delay` | `ms`, `then`? | wait `ms` milliseconds, then do `then` (absent: answer normally) |
/// | `delay` | `minMs`+`maxMs` or `medianMs`+`spread`, `seed`?, `then`? | wait a seeded draw (uniform or log-normal; `FaultLatency`), then do `then` |
/// | `noResponse` | | never answer the stream; PINGs still acknowledged (C4) |
/// | `resetStream` | `errorCode` | RST_STREAM with that code (C5, C6) |
/// | `goaway` | see `GoawayFault` | GOAWAY, then close or keep the socket open (C1, C2) |
/// | `close` | `when`? | close the TCP connection (FIN); `when` defaults to `before-response` |
/// | `reset` | `when`? | reset the TCP connection (RST) (C3) |
/// | `settings` | `maxConcurrentStreams` | send new SETTINGS; streams over it are refused (C5); the stream itself is answered normally |
/// | `withholdWindowUpdate` | `ms` | send no WINDOW_UPDATE on this connection for `ms` milliseconds (a flow-control stall: senders of large bodies block); the stream itself is answered normally |
/// | `sickConnection` | `status`?, `reason` | this and every later stream of the same connection get this answer; other connections are untouched (C7) |
/// | `sequence` | `steps` | the k-th match gets `steps[k]` (an action or `"pass"`); the rule is spent when they run out |
/// | `rateLimit` | `perSecond`, `burst`? | 429 TooManyRequests above a per-device-token rate |
/// | `streamRateLimit` | `perSecond`, `burst`?, `goawayAfter`? | RST_STREAM ENHANCE_YOUR_CALM above a per-connection stream rate, then GOAWAY ENHANCE_YOUR_CALM (`FaultStreamRateLimit`) |
/// | `blackhole` | | from this push on, answer nothing on the connection (no frame at all: no answer, PING ACK, SETTINGS ACK or WINDOW_UPDATE) and keep the socket open (issue 13) |
/// | `drain` | `reason`?, `maxMs`? | drain the connection: GOAWAY NO_ERROR `{"reason": ...}` (default `Shutdown`) with the highest stream processed, this push and the streams in flight answered, FIN once the last is, at `maxMs` (default 5000) at the latest (issue 13) |
///
/// `sequence`, `rateLimit` and `streamRateLimit` only at the top of a rule (not inside `sequence` or `delay`).
public indirect enum FaultAction: Sendable, Hashable, Codable, CustomStringConvertible {
    case respond(FaultResponse)
    /// Wait `milliseconds`, then do `then` (nil: answer normally).
    case delay(milliseconds: Int64, then: FaultAction?)
    /// Wait a draw of `latency` (JSON type `delay`), then do `then` (nil: answer normally). The
    /// engine resolves it into a `delay` of the drawn milliseconds (`FaultDecision.action`).
    case randomDelay(FaultLatency, then: FaultAction?)
    case noResponse
    case resetStream(HTTP2ErrorCode)
    case goaway(GoawayFault)
    /// TCP FIN.
    case close(ResponseTiming)
    /// TCP RST.
    case reset(ResponseTiming)
    case settings(maxConcurrentStreams: UInt32)
    /// No WINDOW_UPDATE on the connection for `milliseconds`.
    case withholdWindowUpdate(milliseconds: Int64)
    case sickConnection(FaultResponse)
    case sequence([FaultStep])
    case rateLimit(FaultRateLimit)
    case streamRateLimit(FaultStreamRateLimit)
    /// Answer nothing more on the connection, the socket kept open (`ConnectionAction.blackhole`).
    case blackhole
    /// Drain the connection (`ConnectionAction.drain`): GOAWAY NO_ERROR with `{"reason": reason}`,
    /// the streams in flight answered (this push too), FIN once the last is, at `maxMilliseconds`
    /// (1 to `FaultLimits.maxMilliseconds`) at the latest.
    case drain(reason: String, maxMilliseconds: Int64)

    /// A `drain`'s cap when the rule names none, milliseconds (the drain command's too).
    public static let defaultDrainMilliseconds: Int64 = 5000

    /// The JSON `type` names.
    public static let typeNames = [
        "respond", "delay", "noResponse", "resetStream", "goaway", "close", "reset",
        "settings", "withholdWindowUpdate", "sickConnection", "sequence", "rateLimit",
        "streamRateLimit", "blackhole", "drain",
    ]

    /// This action's JSON `type`.
    public var typeName: String {
        switch self {
        case .respond: return "respond"
        case .delay, .randomDelay: return "delay"
        case .noResponse: return "noResponse"
        case .resetStream: return "resetStream"
        case .goaway: return "goaway"
        case .close: return "close"
        case .reset: return "reset"
        case .settings: return "settings"
        case .withholdWindowUpdate: return "withholdWindowUpdate"
        case .sickConnection: return "sickConnection"
        case .sequence: return "sequence"
        case .rateLimit: return "rateLimit"
        case .streamRateLimit: return "streamRateLimit"
        case .blackhole: return "blackhole"
        case .drain: return "drain"
        }
    }

    /// A one-line account for delivery records and logs, e.g. `respond 503 ServiceUnavailable`.
    public var description: String {
        switch self {
        case .respond(let response): return "respond \(response.summary)"
        case .delay(let ms, let then): return "delay \(ms) ms, then " + (then.map(\.description) ?? "answer normally")
        case .randomDelay(let latency, let then):
            return "delay \(latency.summary), then " + (then.map(\.description) ?? "answer normally")
        case .noResponse: return "no response"
        case .resetStream(let code): return "RST_STREAM \(code)"
        case .goaway(let goaway): return goaway.summary
        case .close(let moment): return "close (TCP FIN) \(moment.rawValue)"
        case .reset(let moment): return "reset (TCP RST) \(moment.rawValue)"
        case .settings(let limit): return "SETTINGS MAX_CONCURRENT_STREAMS=\(limit)"
        case .withholdWindowUpdate(let ms): return "no WINDOW_UPDATE for \(ms) ms"
        case .sickConnection(let response): return "sick connection: respond \(response.summary)"
        case .sequence(let steps):
            return "sequence of \(steps.count) steps: " + steps.map(\.description).joined(separator: "; ")
        case .rateLimit(let limit): return limit.summary
        case .streamRateLimit(let limit): return limit.summary
        case .blackhole: return "blackhole the connection (nothing answered, socket kept open)"
        case .drain(let reason, let ms):
            return "drain the connection (GOAWAY \(reason), FIN once idle, at most \(ms) ms)"
        }
    }

    /// Range and nesting checks; `path` names the action in errors (e.g. `action`).
    /// - Parameter nested: true inside a `sequence` step or a `delay`'s `then`.
    /// Whether the action means something on the legacy binary gateway (docs/legacy-binary.md §8):
    /// `respond` (an error packet, its status from the reason), `close` and `reset` (the
    /// connection, no packet), `delay` then one of these.
    public var hasBinaryMeaning: Bool {
        switch self {
        case .respond, .close, .reset: return true
        case .delay(_, let then): return then?.hasBinaryMeaning ?? false
        default: return false
        }
    }

    func validate(at path: String, nested: Bool = false) throws(FaultRuleError) {
        let typeField = FaultRuleError.join(path, "type")
        switch self {
        case .respond(let response), .sickConnection(let response):
            try response.validate(at: path)
        case .delay(let ms, let then):
            guard (0...FaultLimits.maxMilliseconds).contains(ms) else {
                throw FaultRuleError(
                    field: FaultRuleError.join(path, "ms"),
                    message: "must be 0 to \(FaultLimits.maxMilliseconds) milliseconds, got \(ms)")
            }
            try then?.validate(at: FaultRuleError.join(path, "then"), nested: true)
        case .randomDelay(let latency, let then):
            try latency.validate(at: path)
            try then?.validate(at: FaultRuleError.join(path, "then"), nested: true)
        case .noResponse, .resetStream, .close, .reset, .settings, .blackhole:
            return
        case .drain(let reason, let ms):
            guard (1...FaultLimits.maxMilliseconds).contains(ms) else {
                throw FaultRuleError(
                    field: FaultRuleError.join(path, "maxMs"),
                    message: "must be 1 to \(FaultLimits.maxMilliseconds) milliseconds, got \(ms)")
            }
            // As a goaway's: a GOAWAY that cannot be sent must not be recorded as sent.
            if let problem = GoawayDebugDataLimit.problem(reason: reason) {
                throw FaultRuleError(field: FaultRuleError.join(path, "reason"), message: problem)
            }
        case .withholdWindowUpdate(let ms):
            guard (1...FaultLimits.maxMilliseconds).contains(ms) else {
                throw FaultRuleError(
                    field: FaultRuleError.join(path, "ms"),
                    message: "must be 1 to \(FaultLimits.maxMilliseconds) milliseconds, got \(ms)")
            }
        case .goaway(let goaway):
            try goaway.validate(at: path)
        case .sequence(let steps):
            guard !nested else {
                throw FaultRuleError(field: typeField, message: "sequence only at the top of a rule, not nested")
            }
            guard !steps.isEmpty else {
                throw FaultRuleError(field: FaultRuleError.join(path, "steps"), message: "must hold at least one step")
            }
            for (index, step) in steps.enumerated() {
                if case .action(let action) = step {
                    try action.validate(at: FaultRuleError.join(path, "steps[\(index)]"), nested: true)
                }
            }
        case .rateLimit(let limit):
            guard !nested else {
                throw FaultRuleError(field: typeField, message: "rateLimit only at the top of a rule, not nested")
            }
            try limit.validate(at: path)
        case .streamRateLimit(let limit):
            guard !nested else {
                throw FaultRuleError(field: typeField, message: "streamRateLimit only at the top of a rule, not nested")
            }
            try limit.validate(at: path)
        }
    }

    /// This action with a seed in every random delay that has none (`pick` gives one), in
    /// `then`s and sequence steps too.
    func seedingLatencies(_ pick: () -> UInt64) -> FaultAction {
        switch self {
        case .randomDelay(var latency, let then):
            if latency.seed == nil { latency.seed = pick() }
            return .randomDelay(latency, then: then?.seedingLatencies(pick))
        case .delay(let ms, let then):
            return .delay(milliseconds: ms, then: then?.seedingLatencies(pick))
        case .sequence(let steps):
            return .sequence(
                steps.map { step in
                    guard case .action(let action) = step else { return step }
                    return .action(action.seedingLatencies(pick))
                })
        default:
            return self
        }
    }
}
