import APNsCore
import Faults
import HTTP2Transport
import Recording

/// Carries out a fault rule's action on the transport, on the connection's loop thread: the
/// stream is answered, delayed, stalled or reset, or the connection gets GOAWAY, SETTINGS, a
/// FIN or a TCP RST (issue "Fault injection"; docs/field-cases.md C1-C7). What touches the connection is also
/// recorded as a connection event, just before it is done.
enum FaultExecutor {
    /// - Parameters:
    ///   - answer: the response the stream gets when the action answers it (the fault's own for
    ///     `respond`, else the normal one).
    ///   - origin: the rule, for the connection events.
    /// - Returns: what the transport does with the stream now.
    static func carryOut(
        _ action: FaultAction, answer: HTTP2Response, streamID: Int32, on connection: HTTP2Connection,
        origin: ConnectionEventOrigin, events: ConnectionEventRecorder
    ) -> HTTP2Action {
        switch action {
        case .respond, .sickConnection, .sequence, .rateLimit:
            return .respond(answer)
        case .delay(let milliseconds, let then):
            connection.loop.schedule(after: Double(milliseconds) / 1000) { [weak connection] in
                guard let connection else { return }
                let later =
                    then.map {
                        carryOut($0, answer: answer, streamID: streamID, on: connection, origin: origin, events: events)
                    } ?? .respond(answer)
                connection.perform(later, on: streamID)
            }
            return .noResponse
        case .noResponse:
            return .noResponse
        case .resetStream(let code):
            return .resetStream(errorCode: code.rawValue)
        case .goaway(let goaway):
            // Before the response, the triggering stream is left above last-stream-id so a
            // correct sender retries it (docs/field-cases.md C1); after it, the stream counts as processed.
            let last = goaway.lastStreamId ?? (goaway.when == .beforeResponse ? max(0, streamID - 2) : nil)
            let send = { [weak connection] in
                guard let connection, connection.canSendGoAway else { return }
                let sentLast = last ?? connection.lastProcessedStreamID
                let closeAfter = goaway.keepOpen ? nil : goaway.closeAfterMs
                // The rule's GOAWAY, then, when asked for, the same one without debug data.
                for debugData in goaway.secondBareGoaway ? [goaway.debugBytes, []] : [goaway.debugBytes] {
                    events.record(
                        .goaway(
                            errorCode: goaway.errorCode.rawValue, lastStreamID: sentLast, debugData: debugData,
                            closeAfterMilliseconds: closeAfter), origin: origin, on: connection)
                    connection.goAway(
                        errorCode: goaway.errorCode.rawValue, lastStreamID: last,
                        debugData: debugData, closeAfter: goaway.closeAfterSeconds)
                }
            }
            if goaway.when == .afterResponse {
                // After this stream's response has been queued and written.
                connection.loop.schedule(after: 0, send)
                return .respond(answer)
            }
            send()
            return .noResponse
        case .close(let moment), .reset(let moment):
            var reset = false
            if case .reset = action { reset = true }
            if !connection.isClosed {
                events.record(reset ? .reset(when: moment) : .close(when: moment), origin: origin, on: connection)
            }
            if moment == .afterResponse {
                connection.closeAfterWriting(reset: reset)
                return .respond(answer)
            }
            connection.close(reset: reset)
            return .noResponse
        case .withholdWindowUpdate(let milliseconds):
            if connection.isOpen {
                events.record(.windowStallStart(milliseconds: milliseconds), origin: origin, on: connection)
                let started = HTTP2Connection.monotonicSeconds()
                connection.withholdWindowUpdates(for: Double(milliseconds) / 1000) { [weak connection] bytes in
                    guard let connection else { return }
                    let lasted = Int64(((HTTP2Connection.monotonicSeconds() - started) * 1000).rounded())
                    events.record(
                        .windowStallEnd(milliseconds: lasted, withheldBytes: bytes), origin: origin, on: connection)
                }
            }
            return .respond(answer)
        case .settings(let maxConcurrentStreams):
            if connection.isOpen {
                events.record(
                    .settings(
                        maxConcurrentStreams: maxConcurrentStreams,
                        previous: connection.announcedMaxConcurrentStreams), origin: origin, on: connection)
                connection.setMaxConcurrentStreams(maxConcurrentStreams)
            }
            return .respond(answer)
        }
    }
}
