import APNsCore

/// Something that happened to an APNs connection without belonging to one request: a GOAWAY, a
/// close or reset, new SETTINGS, a flow-control stall, a listener condition met by a new
/// connection, and the connection's opening and closing (issue "Fault injection", section 3:
/// "Visibility"). A fault that shapes a request's answer shows in that request's delivery record
/// instead; a connection-level fault shows in both (the record names the rule, the event says
/// what the connection got).
///
/// Events are kept in a `ConnectionEventStore` and served by `GET /v1/events`. Immutable once
/// stored.
public struct ConnectionEvent: Sendable, Equatable {
    /// Store sequence number, from 1, strictly increasing (assigned by the store).
    public var seq: UInt64
    /// When it happened, seconds since the Unix epoch (rendered ISO 8601 UTC with milliseconds).
    public var time: Double
    /// The listener's name.
    public var listener: String
    /// The listener's environment.
    public var environment: APNsEnvironment
    /// The connection's id (`PushOrigin.id`, as in delivery records and
    /// `GET /v1/connections`); nil for a refused connection, which never got one.
    public var connectionID: UInt64?
    /// The peer as `host:port` (IPv6 in brackets).
    public var peer: String
    /// What happened, with its particulars.
    public var action: ConnectionEventAction
    /// What caused it.
    public var origin: ConnectionEventOrigin

    /// Creates an event; `seq` is overwritten when it is stored.
    public init(
        seq: UInt64 = 0, time: Double, listener: String, environment: APNsEnvironment, connectionID: UInt64?,
        peer: String, action: ConnectionEventAction, origin: ConnectionEventOrigin
    ) {
        self.seq = seq
        self.time = time
        self.listener = listener
        self.environment = environment
        self.connectionID = connectionID
        self.peer = peer
        self.action = action
        self.origin = origin
    }

    /// The kind of `action`, the name filters and the JSON use.
    public var kind: ConnectionEventKind { action.kind }

    /// `time` in whole milliseconds since the epoch, as rendered and as `since`/`until` compare it.
    public var epochMilliseconds: Int64 {
        let ms = (time * 1000).rounded(.down)
        return ms.isFinite && abs(ms) < 9e15 ? Int64(ms) : 0
    }

    /// One line for logs and the JSON `description`, e.g. `rule f2 (goaway): GOAWAY NO_ERROR (0)
    /// last-stream-id 3, debug data {"reason":"Shutdown"}, close after 0 ms`.
    public var description: String {
        let cause = origin.summary
        return cause.isEmpty ? action.description : cause + ": " + action.description
    }
}
