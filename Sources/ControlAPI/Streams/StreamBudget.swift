/// The bound on a live stream's unsent output, and the decision it makes each time the stream
/// is served (README "Live stream"): a slow consumer never slows pushes, because its stream
/// writes only while its unsent output is under the bound, and is cut off when that output
/// stays at the bound, not taken by the consumer, while records wait to be sent.
public struct StreamBudget: Sendable, Equatable {
    /// The default of `maxUnsentBytes`: 4 MiB.
    public static let defaultMaxUnsentBytes = 4 << 20
    /// The default of `stallSeconds`: 2 seconds.
    public static let defaultStallSeconds = 2.0
    /// The default cap on streams open at once: 64.
    public static let defaultMaxStreams = 64

    /// Bytes written to the stream's connection and not yet taken by the consumer's socket
    /// (libevent's output buffer) at which the stream stops writing.
    public let maxUnsentBytes: Int
    /// Seconds the output may stay at the bound, with records waiting, before the cutoff.
    public let stallSeconds: Double

    /// A budget of `maxUnsentBytes` (at least 1) and `stallSeconds` (at least 0).
    public init(
        maxUnsentBytes: Int = StreamBudget.defaultMaxUnsentBytes,
        stallSeconds: Double = StreamBudget.defaultStallSeconds
    ) {
        self.maxUnsentBytes = max(1, maxUnsentBytes)
        self.stallSeconds = max(0, stallSeconds)
    }

    /// What to do with a stream.
    public enum Decision: Sendable, Equatable {
        /// Write more: new records, then heartbeats.
        case write
        /// Write nothing now: the output is at the bound; look again at the next tick.
        case wait
        /// Send the cutoff message and close.
        case cutOff
    }

    /// `write` under the bound; at it, `cutOff` once the output has been at the bound with
    /// records waiting since `fullSince` for `stallSeconds` (monotonic seconds), else `wait`.
    /// A consumer that reads, however slowly, takes the output under the bound again and is not
    /// cut off (it lags, and records evicted before it gets to them are a gap); one that stops
    /// reading is. The bound holds within one batch of records: a batch is written only under it.
    public func decide(unsentBytes: Int, fullSince: Double?, now: Double) -> Decision {
        guard unsentBytes >= maxUnsentBytes else { return .write }
        if let fullSince, now - fullSince >= stallSeconds { return .cutOff }
        return .wait
    }
}
