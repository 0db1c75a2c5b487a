import SystemSupport
import XCTest

final class MonotonicClockTests: XCTestCase {
    func testNeverGoesBackAndUnitsAgree() {
        let start = MonotonicClock.nanoseconds()
        let seconds = MonotonicClock.seconds()
        usleep(2_000)
        XCTAssertGreaterThanOrEqual(MonotonicClock.nanoseconds(), start)
        XCTAssertGreaterThanOrEqual(MonotonicClock.milliseconds(since: start), 2)
        XCTAssertGreaterThan(MonotonicClock.seconds(), seconds)
        XCTAssertEqual(MonotonicClock.seconds(), Double(MonotonicClock.nanoseconds()) / 1e9, accuracy: 0.01)
    }

    func testDeadlinesAndPollTimeouts() {
        XCTAssertEqual(MonotonicClock.pollTimeout(until: MonotonicClock.nanoseconds() &- 1), 0)
        let timeout = MonotonicClock.pollTimeout(until: MonotonicClock.deadline(after: 1.5))
        XCTAssertTrue((1_400...1_500).contains(timeout), "\(timeout)")
        XCTAssertEqual(MonotonicClock.pollTimeout(until: .max), Int32.max)
        XCTAssertLessThanOrEqual(MonotonicClock.deadline(after: -5), MonotonicClock.nanoseconds())
    }
}
