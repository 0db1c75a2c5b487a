import Glibc

/// The process's open-file (descriptor) limit, `RLIMIT_NOFILE` (README "Limits and known gaps",
/// docs/testing.md "Isolated gateways", "Cost"): raised at start, reported by `GET /v1/health`
/// (`openFileLimit`, `openFiles`), and kept a reserve of, so that making isolated gateways cannot
/// take the descriptors connections and control clients need.
public enum OpenFileLimit {
    /// The highest soft limit `raiseToHard` asks for when the hard limit is unlimited.
    public static let ceiling = 1 << 20

    /// Raises the soft limit to the hard limit (at most `ceiling`), as far as the kernel allows.
    /// - Returns: the soft limit before and after, in descriptors.
    @discardableResult
    public static func raiseToHard() -> (before: Int, after: Int) {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return (0, 0) }
        let before = Int(clamping: limits.rlim_cur)
        let hard = limits.rlim_max == rlim_t.max ? rlim_t(ceiling) : limits.rlim_max
        if limits.rlim_cur < hard {
            var raised = limits
            raised.rlim_cur = hard
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised)
        }
        return (before, current)
    }

    /// The soft limit now: one more descriptor than the highest the process may hold, in descriptors.
    public static var current: Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 0 }
        return limits.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limits.rlim_cur)
    }

    /// Descriptors the process holds now: the entries of `/proc/self/fd`, less the one reading it
    /// takes; 0 when it cannot be read.
    public static func openCount() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = entry.pointee.d_name.0
            if name != UInt8(ascii: ".") { count += 1 }
        }
        return max(0, count - 1)
    }

    /// The descriptors kept free under `limit`: 5 % of it, at least 64 (for connections and
    /// control clients to come).
    public static func reserve(under limit: Int) -> Int { max(64, limit / 20) }

    /// True when `open` descriptors leave no more than the reserve under `limit`: making a
    /// gateway (one listening socket more) is refused then.
    public static func leavesOnlyTheReserve(open: Int, limit: Int) -> Bool {
        open >= limit - reserve(under: limit)
    }
}
