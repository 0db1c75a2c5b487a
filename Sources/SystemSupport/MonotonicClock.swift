import Glibc

/// Monotonic time (`CLOCK_MONOTONIC`) for latencies, ages and deadlines: immune to wall-clock
/// changes. The one clock of the kind for the transport and the client.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point.
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Seconds since the same fixed point as `nanoseconds()`.
    public static func seconds() -> Double { Double(nanoseconds()) / 1e9 }

    /// Milliseconds elapsed since `start` (a `nanoseconds()` value).
    public static func milliseconds(since start: UInt64) -> Double {
        Double(nanoseconds() &- start) / 1_000_000
    }

    /// The `nanoseconds()` value `seconds` from now.
    public static func deadline(after seconds: Double) -> UInt64 {
        nanoseconds() + UInt64(max(0, seconds) * 1_000_000_000)
    }

    /// Milliseconds left until `deadline` for poll(), at least 0, at most Int32.max.
    public static func pollTimeout(until deadline: UInt64) -> Int32 {
        let now = nanoseconds()
        guard deadline > now else { return 0 }
        return Int32(min(UInt64(Int32.max), (deadline - now + 999_999) / 1_000_000))
    }
}
