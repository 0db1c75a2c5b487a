import APNsCore
import Faults

/// What is done to a push's stream and its connection, and when: the pure translation of a
/// fault action (`init(_:streamID:)`, the one switch over `FaultAction` that says what an action
/// does), of a credential that ends the connection (`endConnection`), or of neither (`normal`).
/// `FaultExecutor` (MockAPNs) carries a plan out on the transport; it does not look at the
/// fault action again. Made only here and by `Gateway` (the memberwise initializer, not an
/// explicit one: with that, the optimizer copies each new plan once more).
public struct ActionPlan: Sendable, Hashable {
    /// What the stream is answered, relative to the gateway's own answer.
    public enum Answer: Sendable, Hashable {
        /// The gateway's answer stands (the push's verdict).
        case normal
        /// This APNs error instead (`respond`, `sickConnection`; docs/field-cases.md C7, C12).
        case replaced(FaultResponse)
        /// No answer at all: the record says status 0.
        case none
    }

    /// What the stream is answered.
    public var answer: Answer
    /// What happens to the stream (once the delay is over).
    public var stream: StreamAction
    /// What happens to the connection, if anything (once the delay is over).
    public var connection: ConnectionAction? = nil
    /// True when `connection` comes after the stream's response: a GOAWAY once the response has
    /// been written, a close once it is (`ConnectionAction.close` with `when: .afterResponse`).
    /// False: before the response, or in place of it.
    public var connectionAfterResponse = false
    /// Milliseconds to wait before `stream` and `connection` are carried out (the sum of nested
    /// `delay`s); nil: at once.
    public var delayMilliseconds: Int64? = nil

    /// No fault: the gateway's answer, now; nothing done to the connection.
    public static let normal = ActionPlan(answer: .normal, stream: .answer)

    /// A credential rejected for the whole connection: no answer on the stream, GOAWAY
    /// `{"reason":"<reason>"}` instead (`ConnectionAction.endConnection`; docs/field-cases.md C2).
    public static func endConnection(_ reason: Reason) -> ActionPlan {
        ActionPlan(answer: .none, stream: .leaveOpen, connection: .endConnection(reason))
    }

    /// True when the stream is answered as the gateway would have answered it (then a 200 is an
    /// accepted push: token binding and stream profiles count it).
    public var answersNormally: Bool { answer == .normal }
}

extension ActionPlan {
    /// The plan of fault `action` for a push on `streamID` (docs/field-cases.md C1-C7). `action` is
    /// resolved (`FaultDecision.action`): a `sequence`, `rateLimit` or `streamRateLimit` left in it answers
    /// normally, an unresolved random `delay` waits nothing.
    public init(_ action: FaultAction, streamID: Int32) {
        switch action {
        case .respond(let response), .sickConnection(let response):
            self.init(answer: .replaced(response), stream: .answer)
        case .delay(let milliseconds, let then):
            self = then.map { ActionPlan($0, streamID: streamID) } ?? .normal
            delayMilliseconds = milliseconds + (delayMilliseconds ?? 0)
        case .randomDelay(_, let then):
            // Unresolved (the engine draws it into a `delay`): no wait.
            self = then.map { ActionPlan($0, streamID: streamID) } ?? .normal
        case .noResponse:
            self.init(answer: .none, stream: .leaveOpen)
        case .resetStream(let code):
            self.init(answer: .none, stream: .reset(code))
        case .goaway(let goaway):
            let after = goaway.when == .afterResponse
            // Before the response, the triggering stream is left above last-stream-id so a
            // correct sender retries it (docs/field-cases.md C1); after it, the stream counts as
            // processed (nil: the highest processed when the frame is sent).
            let last = goaway.lastStreamID ?? (after ? nil : max(0, streamID - 2))
            self.init(
                answer: after ? .normal : .none, stream: after ? .answer : .leaveOpen,
                connection: .goaway(
                    errorCode: goaway.errorCode.rawValue, lastStreamID: last, debugData: goaway.debugBytes,
                    closeAfterMilliseconds: goaway.keepOpen ? nil : goaway.closeAfterMs,
                    thenBare: goaway.secondBareGoaway),
                connectionAfterResponse: after)
        case .close(let moment), .reset(let moment):
            var reset = false
            if case .reset = action { reset = true }
            let after = moment == .afterResponse
            self.init(
                answer: after ? .normal : .none, stream: after ? .answer : .leaveOpen,
                connection: .close(reset: reset, when: moment), connectionAfterResponse: after)
        case .settings(let limit):
            self.init(answer: .normal, stream: .answer, connection: .settings(maxConcurrentStreams: limit))
        case .withholdWindowUpdate(let milliseconds):
            self.init(answer: .normal, stream: .answer, connection: .withholdWindowUpdate(milliseconds: milliseconds))
        case .blackhole:
            // The triggering push is not answered either: it ends unanswered when the client gives up.
            self.init(answer: .none, stream: .leaveOpen, connection: .blackhole)
        case .drain(let reason, let maximum):
            // The triggering push is processed: answered normally, under the GOAWAY's line.
            self.init(
                answer: .normal, stream: .answer,
                connection: .drain(debugData: ReasonJSON.bytes(reason), maxMilliseconds: maximum))
        case .sequence, .rateLimit, .streamRateLimit:
            self = .normal
        }
    }
}
