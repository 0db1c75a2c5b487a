import Glibc

/// What a listener logs when accept() fails (out of descriptors: EMFILE, ENFILE), at most once a
/// second: the first failure at once, later ones counted and named in the next line, so a server
/// out of descriptors is never silent and never floods its log (README "Limits and known gaps").
/// Not thread-safe: each listener's loop owns its log.
public struct AcceptFailureLog: Sendable {
    /// Seconds between two lines.
    public static let interval = 1.0
    /// What the lines name the listener as (`APNs listener 0.0.0.0:2197`, `control API`).
    public let what: String
    private var lastLine = -Double.infinity
    private var since = 0

    /// A log for the listener `what`.
    public init(what: String) { self.what = what }

    /// accept() failed with `code` (an `errno`) at `now` (monotonic seconds): the line to log, or
    /// nil when one was logged less than `interval` ago.
    public mutating func failed(code: Int32, now: Double) -> String? {
        since += 1
        guard now - lastLine >= Self.interval else { return nil }
        lastLine = now
        let count = since
        since = 0
        let reason = String(cString: strerror(code))
        return "mock-apns: \(what): accept() failed (\(reason)), \(count) time(s) since the last line; "
            + "accepting paused for 100 ms at a time (raise the open-file limit, ulimit -n, or close connections)"
    }

    /// Logs `failed(code:now:)`'s line, if any, on standard error.
    public mutating func report(code: Int32, now: Double) {
        guard let line = failed(code: code, now: now) else { return }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
