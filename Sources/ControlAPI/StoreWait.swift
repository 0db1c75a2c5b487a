/// A pending long poll over one store (`GET /v1/deliveries/wait`: `StoreWait<DeliveryFilter>`;
/// `GET /v1/events/wait`: `StoreWait<ConnectionEventFilter>`): done when at least `count` stored
/// items match `filter`, or at the timeout. The HTTP adapter keeps it (a value, inside a
/// `ControlWait`) and passes it `inout` to `ControlAPI.waitResult(_:timedOut:)`, which updates
/// the progress fields below.
public struct StoreWait<Filter: Sendable>: Sendable {
    /// The items waited for.
    public let filter: Filter
    /// How many matching items complete the wait (at least 1).
    public let count: Int
    /// How long to wait, in milliseconds (0...`ControlAPI.maxWaitMilliseconds`), from when
    /// `handle` returned the wait.
    public let timeoutMilliseconds: Int

    /// The store's `generation` at the last evaluation: no change, no work.
    var seenGeneration: UInt64
    /// For a store that counts incrementally (deliveries): its clear count when `matched` was
    /// counted (a clear restarts the count), the matching items counted with `seq <= scannedSeq`.
    var seenClears: UInt64
    var matched: Int
    var scannedSeq: UInt64
    /// For deliveries: the lifecycle states waited for (docs/device-model.md §7), nil for none.
    var lifecycle: LifecycleFilter?

    /// Creates a wait that has looked at nothing yet.
    public init(filter: Filter, count: Int, timeoutMilliseconds: Int) {
        self.filter = filter
        self.count = count
        self.timeoutMilliseconds = timeoutMilliseconds
        self.seenGeneration = .max
        self.seenClears = .max
        self.matched = 0
        self.scannedSeq = 0
    }
}
