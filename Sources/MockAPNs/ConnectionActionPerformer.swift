import APNsCore
import Gateway
import HTTP2Transport
import Recording

/// The one place a `ConnectionAction` is carried out on a connection and recorded as a
/// connection event, whatever its origin: a fault rule (`FaultExecutor`), a control-API command
/// (`TransportConnectionDirectory`), a rejected certificate and the `apple-observed` stream
/// profile (`APNsRequestHandler`). What the transport does on its own (idle timeout, shutdown)
/// is recorded through `recordDoneByTransport`, with the same event. Call on the connection's
/// loop thread.
struct ConnectionActionPerformer: Sendable {
    /// Where the events go.
    let events: ConnectionEventRecorder

    /// A drain's GOAWAY debug data: `{"reason":"Shutdown"}`, as APNs's restarts send it.
    static let drainDebugData = ReasonJSON.bytes(.shutdown)

    /// Records `action` (just before it is done: a close may follow at once) and carries it out.
    /// - Returns: false when the connection cannot take it now, and nothing was done or recorded:
    ///   a GOAWAY before its HTTP/2 session started or once it ended, SETTINGS or a window stall
    ///   once it stopped serving new streams, a drain once it sent GOAWAY or before its session
    ///   started. A close is always carried out (recorded only when the socket is still open).
    @discardableResult
    func perform(_ action: ConnectionAction, origin: ConnectionEventOrigin, on connection: HTTP2Connection) -> Bool {
        switch action {
        case .goaway(let code, let last, let debugData, let closeAfter, let thenBare):
            // Nothing is written to a blackholed connection, a GOAWAY included.
            guard connection.canSendGoAway, !connection.isBlackholed else { return false }
            // A fault's GOAWAY goes once per connection: pushes that match after it (in the same
            // read, or streams the rate limit refuses) are above its last-stream-id already.
            if origin.isFault, connection.sentGoAwayLastStreamID != nil { return false }
            let seconds = closeAfter.map { Double($0) / 1000 }
            // The frame, then, when asked for, the same one without debug data (and the
            // last-stream-id the first one carried; never above an earlier GOAWAY's).
            let sentLast = connection.goAwayLastStreamID(for: last)
            record(action, origin: origin, on: connection)
            connection.goAway(errorCode: code, lastStreamID: last, debugData: debugData, closeAfter: seconds)
            if thenBare {
                record(
                    .goaway(
                        errorCode: code, lastStreamID: sentLast, debugData: [], closeAfterMilliseconds: closeAfter,
                        thenBare: false), origin: origin, on: connection)
                connection.goAway(errorCode: code, lastStreamID: last, debugData: [], closeAfter: seconds)
            }
        case .drain(let debugData, let maximum):
            guard connection.isOpen, connection.canSendGoAway, !connection.isBlackholed else { return false }
            let events = self.events
            connection.drain(
                debugData: debugData, timeout: Double(maximum) / 1000,
                sent: { last in
                    events.record(
                        .drain(errorCode: 0, lastStreamID: last, debugData: debugData, maxMilliseconds: maximum),
                        origin: origin, on: connection)
                },
                closing: { [weak connection] in
                    // The drain's FIN is a close of its own, as every close is (issue 13).
                    guard let connection else { return }
                    events.record(.close(when: nil), origin: origin, on: connection)
                })
        case .close(let reset, let moment):
            if !connection.isClosed { record(action, origin: origin, on: connection) }
            if moment == .afterResponse {
                connection.closeAfterWriting(reset: reset)
            } else {
                connection.close(reset: reset)
            }
        case .settings(let limit):
            guard connection.isOpen else { return false }
            record(action, origin: origin, on: connection)
            connection.setMaxConcurrentStreams(limit)
        case .withholdWindowUpdate(let milliseconds):
            guard connection.isOpen else { return false }
            record(action, origin: origin, on: connection)
            let started = HTTP2Connection.monotonicSeconds()
            let events = self.events
            connection.withholdWindowUpdates(for: Double(milliseconds) / 1000) { [weak connection] bytes in
                guard let connection else { return }
                let lasted = Int64(((HTTP2Connection.monotonicSeconds() - started) * 1000).rounded())
                events.record(
                    .windowStallEnd(milliseconds: lasted, withheldBytes: bytes), origin: origin, on: connection)
            }
        case .blackhole:
            guard connection.canSendGoAway, !connection.isBlackholed else { return false }
            record(action, origin: origin, on: connection)
            connection.blackhole()
        }
        return true
    }

    /// Records `action` that the transport carried out itself (the idle timeout's GOAWAY or reset,
    /// the shutdown's GOAWAY) with the event `perform` records; give the last-stream-id sent.
    func recordDoneByTransport(
        _ action: ConnectionAction, origin: ConnectionEventOrigin, on connection: HTTP2Connection
    ) {
        record(action, origin: origin, on: connection)
    }

    /// The connection event of `action`, now: a GOAWAY's last-stream-id as it is sent, SETTINGS
    /// with the limit it replaces. (`thenBare`'s second frame is recorded as a GOAWAY of its own.)
    private func record(_ action: ConnectionAction, origin: ConnectionEventOrigin, on connection: HTTP2Connection) {
        let event: ConnectionEventAction
        switch action {
        case .goaway(let code, let last, let debugData, let closeAfter, _):
            event = .goaway(
                errorCode: code, lastStreamID: connection.goAwayLastStreamID(for: last), debugData: debugData,
                closeAfterMilliseconds: closeAfter)
        case .close(let reset, let moment):
            event = reset ? .reset(when: moment) : .close(when: moment)
        case .settings(let limit):
            event = .settings(maxConcurrentStreams: limit, previous: connection.announcedMaxConcurrentStreams)
        case .withholdWindowUpdate(let milliseconds):
            event = .windowStallStart(milliseconds: milliseconds)
        case .blackhole:
            event = .blackhole
        case .drain(let debugData, let maximum):
            event = .drain(
                errorCode: 0, lastStreamID: connection.lastProcessedStreamID, debugData: debugData,
                maxMilliseconds: maximum)
        }
        events.record(event, origin: origin, on: connection)
    }
}
