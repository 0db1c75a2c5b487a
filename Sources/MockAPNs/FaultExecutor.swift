import APNsCore
import Faults
import Gateway
import HTTP2Transport
import Recording

/// Carries out a fault rule's action on the transport, on the connection's loop thread: the
/// stream is answered, delayed, stalled or reset, or the connection gets GOAWAY, SETTINGS, a
/// FIN or a TCP RST (issue "Fault injection"; docs/field-cases.md C1-C7). What touches the connection is
/// a `ConnectionAction`, carried out and recorded by the `ConnectionActionPerformer`.
enum FaultExecutor {
    /// - Parameters:
    ///   - answer: the response the stream gets when the action answers it (the fault's own for
    ///     `respond`, else the normal one).
    ///   - origin: the rule, for the connection events.
    /// - Returns: what the transport does with the stream now.
    static func carryOut(
        _ action: FaultAction, answer: HTTP2Response, streamID: Int32, on connection: HTTP2Connection,
        origin: ConnectionEventOrigin, actions: ConnectionActionPerformer
    ) -> HTTP2Action {
        switch action {
        case .respond, .sickConnection, .sequence, .rateLimit:
            return .respond(answer)
        case .delay(let milliseconds, let then):
            connection.loop.schedule(after: Double(milliseconds) / 1000) { [weak connection] in
                guard let connection else { return }
                let later =
                    then.map {
                        carryOut(
                            $0, answer: answer, streamID: streamID, on: connection, origin: origin, actions: actions)
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
            let frame = ConnectionAction.goaway(
                errorCode: goaway.errorCode.rawValue, lastStreamID: last, debugData: goaway.debugBytes,
                closeAfterMilliseconds: goaway.keepOpen ? nil : goaway.closeAfterMs, thenBare: goaway.secondBareGoaway)
            if goaway.when == .afterResponse {
                // After this stream's response has been queued and written.
                connection.loop.schedule(after: 0) { [weak connection] in
                    guard let connection else { return }
                    actions.perform(frame, origin: origin, on: connection)
                }
                return .respond(answer)
            }
            actions.perform(frame, origin: origin, on: connection)
            return .noResponse
        case .close(let moment), .reset(let moment):
            var reset = false
            if case .reset = action { reset = true }
            actions.perform(.close(reset: reset, when: moment), origin: origin, on: connection)
            return moment == .afterResponse ? .respond(answer) : .noResponse
        case .withholdWindowUpdate(let milliseconds):
            actions.perform(.withholdWindowUpdate(milliseconds: milliseconds), origin: origin, on: connection)
            return .respond(answer)
        case .settings(let maxConcurrentStreams):
            actions.perform(.settings(maxConcurrentStreams: maxConcurrentStreams), origin: origin, on: connection)
            return .respond(answer)
        }
    }
}
