import Recording

/// A pending `GET /v1/deliveries/wait`: done when at least `count` stored records match
/// `filter`, or at the timeout. The HTTP adapter keeps it (a value) and passes it `inout` to
/// `ControlAPI.waitResult(_:timedOut:)`, which updates the progress fields below.
public struct DeliveryWait: Sendable {
    /// The records waited for.
    public let filter: DeliveryFilter
    /// How many matching records complete the wait (at least 1).
    public let count: Int
    /// How long to wait, in milliseconds (0...`ControlAPI.maxWaitMilliseconds`), from when
    /// `handle` returned the wait.
    public let timeoutMilliseconds: Int

    /// The store's `generation` at the last evaluation: no change, no work.
    var seenGeneration: UInt64
    /// The store's clear count when `matched` was counted; a clear restarts the count.
    var seenClears: UInt64
    /// Matching records counted with `seq <= scannedSeq`.
    var matched: Int
    var scannedSeq: UInt64

    /// Creates a wait that has counted nothing yet.
    public init(filter: DeliveryFilter, count: Int, timeoutMilliseconds: Int) {
        self.filter = filter
        self.count = count
        self.timeoutMilliseconds = timeoutMilliseconds
        self.seenGeneration = .max
        self.seenClears = .max
        self.matched = 0
        self.scannedSeq = 0
    }
}
