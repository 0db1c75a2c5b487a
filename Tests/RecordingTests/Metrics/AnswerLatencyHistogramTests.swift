import Foundation
import XCTest

@testable import Recording

final class AnswerLatencyHistogramTests: XCTestCase {
    func testObservationsFallInTheFirstBucketTheyDoNotExceed() {
        // (nanoseconds, index of the first cumulative count that includes it)
        let rows: [(UInt64, Int)] = [
            (0, 0), (100_000, 0), (100_001, 1), (250_000, 1), (999_999, 3), (1_000_000, 3),
            (10_000_000_000, 15), (10_000_000_001, 16), (.max / 4, 16),
        ]
        for (nanoseconds, index) in rows {
            let histogram = AnswerLatencyHistogram()
            histogram.observe(nanoseconds: nanoseconds)
            let counts = histogram.snapshot().cumulativeCounts
            XCTAssertEqual(counts.count, AnswerLatencyHistogram.bounds.count + 1)
            XCTAssertEqual(counts.firstIndex(of: 1), index, "\(nanoseconds) ns")
            XCTAssertEqual(counts.last, 1)
        }
    }

    func testSnapshotIsCumulativeWithTheSumInSeconds() {
        let histogram = AnswerLatencyHistogram()
        for nanoseconds: UInt64 in [50_000, 50_000, 2_000_000, 3_000_000_000] {
            histogram.observe(nanoseconds: nanoseconds)
        }
        let snapshot = histogram.snapshot()
        XCTAssertEqual(snapshot.count, 4)
        XCTAssertEqual(snapshot.cumulativeCounts[0], 2)
        XCTAssertEqual(snapshot.cumulativeCounts[AnswerLatencyHistogram.bounds.firstIndex(of: 0.0025)!], 3)
        XCTAssertEqual(snapshot.cumulativeCounts[AnswerLatencyHistogram.bounds.firstIndex(of: 5)!], 4)
        XCTAssertEqual(snapshot.cumulativeCounts, snapshot.cumulativeCounts.sorted(), "non-decreasing")
        XCTAssertEqual(snapshot.sumSeconds, 3.0021, accuracy: 1e-9)
    }

    func testObservedFromManyThreadsAtOnce() {
        let histogram = AnswerLatencyHistogram()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { histogram.observe(nanoseconds: 1_000) }
        }
        XCTAssertEqual(histogram.snapshot().count, 80_000)
        XCTAssertEqual(histogram.snapshot().sumSeconds, 0.08, accuracy: 1e-9)
    }
}
