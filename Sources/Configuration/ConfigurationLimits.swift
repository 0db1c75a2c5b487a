/// The accepted ranges and wordings of values shared by the file parser, the command-line parser
/// and `Configuration.validate()` that are not a setting's own (those are in
/// `ConfigurationSetting.all`): ports, token lengths, seconds, timestamps.
enum ConfigurationLimits {
    static let port = 0...65535
    /// "an integer from 0 to 65535", or "an integer of at least 1" for an open range.
    static func expectation(_ range: ClosedRange<Int>) -> String {
        range.upperBound == Int.max
            ? "an integer of at least \(range.lowerBound)"
            : "an integer from \(range.lowerBound) to \(range.upperBound)"
    }

    /// The accepted token lengths given `maxTokenLength`: even, from 2 up.
    static func tokenLengthExpectation(maxTokenLength: Int) -> String {
        "an even integer from 2 to \(maxTokenLength) (maxTokenLength)"
    }

    static let idleTimeoutExpectation = "a number of seconds above 0 and at most 604800, or null for none"
    /// The command line has no `null`: leaving the flag out means no idle timeout.
    static let idleTimeoutFlagExpectation =
        "a number of seconds above 0 and at most 604800 (leave the flag out for none)"
    static let maxIdleTimeout = 604_800.0
    static let drainTimeoutExpectation = "a number of seconds from 0 to 3600"
    static let maxDrainTimeout = 3600.0
    /// The same bound `PUT /v1/clock` uses.
    static let maxClockOffset = 1e10

    static let clockOffsetExpectation = "a number of seconds within ±1e10 (negative moves the clock back)"

    /// The unregistration time forms a device accepts.
    static let timestampExpectation =
        "milliseconds since the Unix epoch (an integer from 0 to 253402300799999) or an ISO 8601 date-time from "
        + "1970 to 9999 such as \"2024-05-01T12:00:00Z\""
}
