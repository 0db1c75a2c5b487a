import Recording

/// A pending `GET /v1/events/wait`: done when at least `count` stored events match `filter`,
/// or at the timeout. Kept by the HTTP adapter inside a `ControlWait` and passed `inout` to
/// `ControlAPI.waitResult(_:timedOut:)`.
public struct ConnectionEventWait: Sendable {
    /// The events waited for.
    public let filter: ConnectionEventFilter
    /// How many matching events complete the wait (at least 1).
    public let count: Int
    /// How long to wait, in milliseconds (0...`ControlAPI.maxWaitMilliseconds`), from when
    /// `handle` returned the wait.
    public let timeoutMilliseconds: Int

    /// The store's `generation` at the last evaluation: no change, no work.
    var seenGeneration: UInt64

    /// Creates a wait that has looked at nothing yet.
    public init(filter: ConnectionEventFilter, count: Int, timeoutMilliseconds: Int) {
        self.filter = filter
        self.count = count
        self.timeoutMilliseconds = timeoutMilliseconds
        self.seenGeneration = .max
    }
}
