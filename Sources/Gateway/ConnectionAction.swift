import APNsCore
import Faults

/// Something done to a whole connection, with its data: what a fault rule, a control-API
/// command (`POST /v1/connections/{id}/...`), a rejected credential, the `apple-observed` stream
/// profile or the transport itself does to it. One performer carries each out on the transport
/// and records it as a connection event (`ConnectionActionPerformer`, MockAPNs).
public enum ConnectionAction: Sendable, Hashable {
    /// GOAWAY with an HTTP/2 error code (0 NO_ERROR), `lastStreamID` (nil: the highest stream
    /// processed when the frame is sent) and `debugData` (APNs sends `{"reason":...}`, built by
    /// `ReasonJSON`); the socket closes `closeAfterMilliseconds` later (0: once written; nil:
    /// never, new streams are ignored). `thenBare`: a second GOAWAY with the same last-stream-id
    /// and no debug data right after (docs/field-cases.md C2).
    case goaway(
        errorCode: UInt32, lastStreamID: Int32?, debugData: [UInt8], closeAfterMilliseconds: Int64?, thenBare: Bool)
    /// Close the TCP connection, with a RST when `reset`, else a FIN; `when` relative to the stream
    /// that triggered it (after its response: once that is written), nil when not tied to a stream.
    case close(reset: Bool, when: ResponseTiming?)
    /// SETTINGS with a new MAX_CONCURRENT_STREAMS (streams over it are refused, docs/field-cases.md C5).
    case settings(maxConcurrentStreams: UInt32)
    /// No WINDOW_UPDATE on the connection for `milliseconds` (a flow-control stall).
    case withholdWindowUpdate(milliseconds: Int64)
    /// Answer nothing from now on (no HEADERS, DATA, PING ACK, SETTINGS ACK, WINDOW_UPDATE), keep
    /// the socket open, read and drop what arrives (`HTTP2Connection.blackhole`; issue 13).
    case blackhole
    /// A graceful drain: GOAWAY NO_ERROR with `debugData` (APNs's `{"reason":"Shutdown"}` from
    /// the `rolling-restart` scenario; the command's own reason) and the highest stream processed,
    /// the streams in flight still answered, then a FIN as soon as the last is answered and
    /// written, or `maxMilliseconds` after the GOAWAY at the latest (`HTTP2Connection.drain`;
    /// issue 13).
    case drain(debugData: [UInt8], maxMilliseconds: Int64)

    /// How APNs ends a connection whose credential it rejects: GOAWAY NO_ERROR, last-stream-id 0,
    /// `{"reason":"<reason>"}`, closed once written (docs/apns-behaviour.md §5; docs/field-cases.md C2).
    public static func endConnection(_ reason: Reason) -> ConnectionAction {
        .goaway(
            errorCode: 0, lastStreamID: 0, debugData: ReasonJSON.bytes(reason), closeAfterMilliseconds: 0,
            thenBare: false)
    }
}
