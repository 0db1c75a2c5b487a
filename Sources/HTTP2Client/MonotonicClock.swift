import Glibc

/// Monotonic time for latencies and deadlines (immune to wall-clock changes).
enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point.
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Milliseconds elapsed since `start` (a `nanoseconds()` value).
    static func milliseconds(since start: UInt64) -> Double {
        Double(nanoseconds() &- start) / 1_000_000
    }

    /// The `nanoseconds()` value `seconds` from now.
    static func deadline(after seconds: Double) -> UInt64 {
        nanoseconds() + UInt64(max(0, seconds) * 1_000_000_000)
    }

    /// Milliseconds left until `deadline` for poll(), at least 0, at most Int32.max.
    static func pollTimeout(until deadline: UInt64) -> Int32 {
        let now = nanoseconds()
        guard deadline > now else { return 0 }
        return Int32(min(UInt64(Int32.max), (deadline - now + 999_999) / 1_000_000))
    }
}
