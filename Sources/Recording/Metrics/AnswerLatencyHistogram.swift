import Synchronization

/// How long the gateway took to answer pushes, as a histogram in seconds (`GET /metrics`,
/// `mock_apns_answer_latency_seconds`; README "Metrics"): from the moment the transport hands a
/// complete request to the gateway to the moment its answer is handed back to be serialized
/// (for an answer a `delay` fault holds, to the moment its HEADERS is serialized). Streams that
/// get no answer are not observed.
///
/// Observed on the push path from every worker at once: one relaxed atomic add to a bucket and
/// one to the sum, no lock. A scrape reads the counters one by one, so a push observed meanwhile
/// may show in a bucket and not yet in the sum or count; each is exact once pushes stop.
public final class AnswerLatencyHistogram: Sendable {
    /// The buckets' upper bounds in seconds, ascending; a last bucket (`+Inf`) takes the rest.
    public static let bounds: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
    /// `bounds[0]` in nanoseconds (100 µs).
    private static let firstBoundNanoseconds: UInt64 = 100_000
    /// The observations of the first bucket.
    private let first = Atomic<UInt64>(0)
    /// `bounds` in nanoseconds, for the comparison on the push path.
    private static let boundNanoseconds: [UInt64] = bounds.map { UInt64(($0 * 1e9).rounded()) }

    /// Observations by bucket (not cumulative): `bounds.count + 1` counters, the last `+Inf`;
    /// the first is unused (`first` counts that bucket).
    private let buckets: [Counter]
    /// The sum of the observations, in nanoseconds.
    private let sumNanoseconds = Atomic<UInt64>(0)

    /// An empty histogram.
    public init() {
        buckets = (0...Self.bounds.count).map { _ in Counter() }
    }

    /// Counts one answer that took `nanoseconds`: in the first bucket whose bound it does not exceed.
    /// Most answers take less than the first bound: that bucket is its own counter, reached
    /// without the array.
    @inline(__always)
    public func observe(nanoseconds: UInt64) {
        sumNanoseconds.add(nanoseconds, ordering: .relaxed)
        if nanoseconds <= Self.firstBoundNanoseconds {
            first.add(1, ordering: .relaxed)
            return
        }
        var index = 1
        let bounds = Self.boundNanoseconds
        while index < bounds.count && nanoseconds > bounds[index] { index += 1 }
        buckets[index].value.add(1, ordering: .relaxed)
    }

    /// What has been observed so far.
    public func snapshot() -> Snapshot {
        var cumulative: [UInt64] = []
        var running: UInt64 = 0
        for (index, bucket) in buckets.enumerated() {
            running &+= index == 0 ? first.load(ordering: .relaxed) : bucket.value.load(ordering: .relaxed)
            cumulative.append(running)
        }
        return Snapshot(
            cumulativeCounts: cumulative, sumSeconds: Double(sumNanoseconds.load(ordering: .relaxed)) / 1e9)
    }

    /// One bucket's counter (an atomic cannot be an array's element).
    private final class Counter: Sendable {
        let value = Atomic<UInt64>(0)
    }

    /// A reading of the histogram.
    public struct Snapshot: Sendable, Equatable {
        /// Observations at or below each of `AnswerLatencyHistogram.bounds`, then the total
        /// (`+Inf`): `bounds.count + 1` values, non-decreasing.
        public var cumulativeCounts: [UInt64]
        /// The sum of the observations, in seconds.
        public var sumSeconds: Double

        /// Memberwise initializer.
        public init(cumulativeCounts: [UInt64], sumSeconds: Double) {
            self.cumulativeCounts = cumulativeCounts
            self.sumSeconds = sumSeconds
        }

        /// The number of observations.
        public var count: UInt64 { cumulativeCounts.last ?? 0 }
    }
}
