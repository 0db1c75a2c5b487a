import Recording

/// A `POST /v1/verify` with time left (`withinMs`) that is not settled yet (docs/testing.md): the
/// HTTP adapter keeps it inside a `ControlWait` and passes it `inout` to
/// `ControlAPI.waitResult(_:timedOut:)`, which looks again whenever the store changed.
public struct VerificationWait: Sendable {
    /// What is counted.
    public let match: DeliveryMatch
    /// How many are expected.
    public let count: ExpectedCount
    /// How long to wait or watch, in milliseconds from when `handle` returned the wait.
    public let timeoutMilliseconds: Int
    /// The store's `generation` at the last look: no change, no work.
    var seenGeneration: UInt64 = .max

    init(match: DeliveryMatch, count: ExpectedCount, timeoutMilliseconds: Int) {
        self.match = match
        self.count = count
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}
