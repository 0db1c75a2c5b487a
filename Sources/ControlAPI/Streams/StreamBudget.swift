/// The bound on a live stream's unsent output, and the decision it makes each time the stream
/// is served (README "Live stream"): a slow consumer never slows pushes, because its stream is
/// cut off instead of buffering without end.
public struct StreamBudget: Sendable, Equatable {
    /// The default of `maxUnsentBytes`: 4 MiB.
    public static let defaultMaxUnsentBytes = 4 << 20
    /// The default cap on streams open at once: 64.
    public static let defaultMaxStreams = 64

    /// Bytes written to the stream's connection and not yet taken by the consumer's socket
    /// (libevent's output buffer), past which the stream is cut off.
    public let maxUnsentBytes: Int

    /// A budget of `maxUnsentBytes` (at least 1).
    public init(maxUnsentBytes: Int = StreamBudget.defaultMaxUnsentBytes) {
        self.maxUnsentBytes = max(1, maxUnsentBytes)
    }

    /// What to do with a stream whose connection holds `unsentBytes` not yet sent.
    public enum Decision: Sendable, Equatable {
        /// Write more: new records, then heartbeats.
        case write
        /// Send the cutoff message and close.
        case cutOff
    }

    /// `cutOff` once more than `maxUnsentBytes` wait unsent, else `write`. The bound holds
    /// within one batch of records: a batch is written only below it.
    public func decide(unsentBytes: Int) -> Decision {
        unsentBytes > maxUnsentBytes ? .cutOff : .write
    }
}
