import Faults
import HTTPFields
import JSONInput
import JSONSupport

/// What happened to the connection, with the particulars a sender's test asserts on. Durations
/// are in milliseconds.
public enum ConnectionEventAction: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP/2 session started; `maxConcurrentStreams` is the SETTINGS value announced first
    /// (1 under the `apple-observed` profile for a token connection).
    case opened(alpn: String?, tls: Bool, maxConcurrentStreams: UInt32)
    /// GOAWAY with an HTTP/2 error code, the last-stream-id as sent, and the debug data (APNs
    /// sends `{"reason":"..."}`); the socket closes `closeAfterMilliseconds` later (0: once the
    /// frame is written; nil: never, new streams are ignored).
    case goaway(errorCode: UInt32, lastStreamID: Int32, debugData: [UInt8], closeAfterMilliseconds: Int64?)
    /// A drain: GOAWAY as `goaway` (kind `goaway`), after which the streams in flight are
    /// answered and the socket closes as soon as the last one is, `maxMilliseconds` at the latest.
    case drain(errorCode: UInt32, lastStreamID: Int32, debugData: [UInt8], maxMilliseconds: Int64)
    /// TCP FIN, before or after the triggering stream's response (nil: not tied to a stream).
    case close(when: ResponseTiming?)
    /// TCP RST, before or after the triggering stream's response (nil: not tied to a stream).
    case reset(when: ResponseTiming?)
    /// SETTINGS with a new MAX_CONCURRENT_STREAMS, replacing `previous`.
    case settings(maxConcurrentStreams: UInt32, previous: UInt32)
    /// No WINDOW_UPDATE for `milliseconds` from now.
    case windowStallStart(milliseconds: Int64)
    /// The stall ended after `milliseconds`; `withheldBytes` of DATA received meanwhile were
    /// acknowledged at once.
    case windowStallEnd(milliseconds: Int64, withheldBytes: Int)
    /// The handshake is held back `milliseconds` before it starts.
    case handshakeDelay(milliseconds: Int64)
    /// Accepted at the TCP level and never answered.
    case silentAccept
    /// Closed at once with a TCP reset.
    case refused
    /// The connection is gone after `requests` completed requests and `ageMilliseconds`.
    case closed(requests: UInt64, ageMilliseconds: Int64)
    /// From now on nothing is answered (no frame at all) and the socket stays open; what arrives
    /// is read and dropped (issue 13).
    case blackhole
    /// A legacy binary gateway or feedback service connection (docs/legacy-binary.md §8) was
    /// established: `transport` is `binary` or `feedback`; `certificateSubject` the verified
    /// client certificate's subject, nil without one; `topic` what its notifications are judged
    /// with (binary; nil on feedback or when none).
    case legacyOpened(transport: String, tls: Bool, certificateSubject: String?, topic: String?)
    /// A legacy connection is gone: `reason` names why (`error-packet`, `severed`, `shutdown`,
    /// `command`, `idle-timeout`, `peer-closed`, `certificate-required`, `certificate-environment`,
    /// `feedback-sent`, `fault`, `server-closed`), after `notifications` binary notifications read (feedback:
    /// tuples written) and `ageMilliseconds`.
    case legacyClosed(transport: String, reason: String, notifications: UInt64, ageMilliseconds: Int64)
    /// The binary gateway wrote an error-response packet (command 8): Apple's `status` byte, its
    /// wording `statusName`, and the notification `identifier` it names.
    case errorPacket(status: UInt8, statusName: String, identifier: UInt32)
    /// The feedback service wrote `tuples` feedback tuples (the tokens, hex) to the connection.
    case feedbackSent(tuples: Int, tokens: [String])

    /// The kind, for filters and the JSON `kind`.
    public var kind: ConnectionEventKind {
        switch self {
        case .opened: return .opened
        case .goaway, .drain: return .goaway
        case .close: return .close
        case .reset: return .reset
        case .settings: return .settings
        case .windowStallStart: return .windowStallStart
        case .windowStallEnd: return .windowStallEnd
        case .handshakeDelay: return .handshakeDelay
        case .silentAccept: return .silentAccept
        case .blackhole: return .blackhole
        case .refused: return .refused
        case .closed, .legacyClosed: return .closed
        case .legacyOpened: return .opened
        case .errorPacket: return .errorPacket
        case .feedbackSent: return .feedbackSent
        }
    }

    /// The `reason` of GOAWAY debug data shaped `{"reason":"..."}`, as APNs sends it; nil for
    /// other debug data and other kinds.
    public var goawayReason: String? {
        let data: [UInt8]
        switch self {
        case .goaway(_, _, let bytes, _), .drain(_, _, let bytes, _): data = bytes
        default: return nil
        }
        guard !data.isEmpty, case .object(let object)? = try? JSONNode(decoding: data),
            case .string(let reason)? = object["reason"]
        else { return nil }
        return reason
    }

    /// One line, e.g. `GOAWAY NO_ERROR (0) last-stream-id 3, debug data {"reason":"Shutdown"},
    /// close after 0 ms`.
    public var description: String {
        switch self {
        case .opened(let alpn, let tls, let limit):
            return "opened (\(tls ? "TLS" : "cleartext"), ALPN \(alpn ?? "none"), MAX_CONCURRENT_STREAMS \(limit))"
        case .goaway(let code, let last, let data, let closeAfter):
            var text = "GOAWAY \(HTTP2ErrorCode(rawValue: code)) last-stream-id \(last)"
            text += data.isEmpty ? ", no debug data" : ", debug data \(String(decoding: data, as: UTF8.self))"
            text += closeAfter.map { ", close after \($0) ms" } ?? ", kept open"
            return text
        case .drain(let code, let last, let data, let maximum):
            var text = "GOAWAY \(HTTP2ErrorCode(rawValue: code)) last-stream-id \(last)"
            text += data.isEmpty ? ", no debug data" : ", debug data \(String(decoding: data, as: UTF8.self))"
            return text + ", drained: closed once the streams in flight are answered, within \(maximum) ms"
        case .close(let moment): return "close (TCP FIN)" + (moment.map { " \($0.rawValue)" } ?? "")
        case .reset(let moment): return "reset (TCP RST)" + (moment.map { " \($0.rawValue)" } ?? "")
        case .settings(let limit, let previous): return "SETTINGS MAX_CONCURRENT_STREAMS \(previous) -> \(limit)"
        case .windowStallStart(let ms): return "no WINDOW_UPDATE for \(ms) ms"
        case .windowStallEnd(let ms, let bytes):
            return "WINDOW_UPDATE resumed after \(ms) ms, \(bytes) bytes acknowledged"
        case .handshakeDelay(let ms): return "handshake delayed \(ms) ms"
        case .silentAccept: return "accepted silently, never answered"
        case .blackhole: return "blackholed: nothing answered from now on, socket kept open"
        case .refused: return "refused with a TCP reset"
        case .closed(let requests, let age):
            return "closed after \(requests) request\(requests == 1 ? "" : "s") and \(age) ms"
        case .legacyOpened(let transport, let tls, let subject, let topic):
            return "\(transport) connection opened (\(tls ? "TLS" : "cleartext"), certificate "
                + (subject ?? "none") + ", topic " + (topic ?? "none") + ")"
        case .legacyClosed(let transport, let reason, let count, let age):
            let unit = transport == "feedback" ? "tuple" : "notification"
            return
                "\(transport) connection closed (\(reason)) after \(count) \(unit)\(count == 1 ? "" : "s") and \(age) ms"
        case .errorPacket(let status, let name, let identifier):
            return "error packet status \(status) (\(name)), identifier \(identifier)"
        case .feedbackSent(let tuples, _):
            return "feedback: \(tuples) tuple\(tuples == 1 ? "" : "s") written"
        }
    }
}
