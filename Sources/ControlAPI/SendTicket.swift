import Synchronization

/// A `POST /v1/send` in flight (`ControlWait.send`): the sender's thread fills it in, the control
/// loop's wait polling reads it. Thread-safe.
public final class SendTicket: Sendable {
    private let answer = Mutex<ComposedPushAnswer?>(nil)
    /// When the send started, in the store's sequence: the record sought is after it.
    let afterSeq: UInt64

    /// How long the control API waits for the answer, in milliseconds: the client's own
    /// timeouts (10 s to connect, 30 s for the answer) and a margin.
    public static let timeoutMilliseconds = 45_000

    init(afterSeq: UInt64) {
        self.afterSeq = afterSeq
    }

    /// Records the answer; the first one wins.
    public func complete(_ value: ComposedPushAnswer) {
        answer.withLock { if $0 == nil { $0 = value } }
    }

    /// The answer, once there is one.
    public var result: ComposedPushAnswer? { answer.withLock { $0 } }
}
