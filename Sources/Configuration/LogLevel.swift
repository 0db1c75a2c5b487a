/// How much the gateway logs, from least to most. Each level includes the ones before it.
public enum LogLevel: String, Sendable, Equatable, Comparable, CaseIterable {
    /// Failures only.
    case error
    /// Also anomalies that do not stop the gateway.
    case warning
    /// Default. Also life-cycle events such as start, stop and connections.
    case info
    /// Also per-request and protocol detail.
    case debug

    /// Ordered by verbosity: `error < warning < info < debug`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
