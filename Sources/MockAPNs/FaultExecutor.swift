import APNsCore
import Gateway
import HTTP2Transport
import Recording

/// Carries out an `ActionPlan` (a fault rule's, or a rejected certificate's) on the transport,
/// on the connection's loop thread: after the plan's delay, its connection action goes to the
/// `ConnectionActionPerformer` (which records it), and the stream is answered, left open or
/// reset (issue "Fault injection"; docs/field-cases.md C1-C7). What a fault action means was
/// decided by `ActionPlan.init(_:streamID:)`; nothing here looks at the action again.
enum FaultExecutor {
    /// - Parameters:
    ///   - answer: the response the stream gets when the plan answers it (the fault's own for
    ///     `respond`, else the normal one).
    ///   - origin: the rule or the certificate, for the connection events.
    ///   - whenAnswered: for a delayed answer, called once its response HEADERS is serialized
    ///     (the pending record then says its status: `DeliveryStore.markAnswered`).
    /// - Returns: what the transport does with the stream now.
    static func carryOut(
        _ plan: ActionPlan, answer: HTTP2Response, streamID: Int32, on connection: HTTP2Connection,
        origin: ConnectionEventOrigin, actions: ConnectionActionPerformer, whenAnswered: (@Sendable () -> Void)? = nil
    ) -> HTTP2Action {
        if let milliseconds = plan.delayMilliseconds {
            var now = plan
            now.delayMilliseconds = nil
            connection.loop.schedule(after: Double(milliseconds) / 1000) { [weak connection] in
                guard let connection else { return }
                let later = carryOut(
                    now, answer: answer, streamID: streamID, on: connection, origin: origin, actions: actions)
                connection.perform(later, on: streamID, whenAnswered: whenAnswered)
            }
            return .noResponse
        }
        if let action = plan.connection {
            if plan.connectionAfterResponse, case .goaway = action {
                // After this stream's response has been queued and written.
                connection.loop.schedule(after: 0) { [weak connection] in
                    guard let connection else { return }
                    actions.perform(action, origin: origin, on: connection)
                }
            } else {
                // A close after the response waits for it itself (`closeAfterWriting`).
                actions.perform(action, origin: origin, on: connection)
            }
        }
        return streamAction(plan.stream, answer: answer)
    }

    /// What the transport does with the stream for `action`: send `answer`, nothing, or RST_STREAM.
    /// `answer` is consumed: moved into `.respond` rather than copied (every push's answer).
    @inline(__always)
    static func streamAction(_ action: StreamAction, answer: consuming HTTP2Response) -> HTTP2Action {
        switch action {
        case .answer: return .respond(answer)
        case .leaveOpen: return .noResponse
        case .reset(let code): return .resetStream(errorCode: code.rawValue)
        }
    }
}
