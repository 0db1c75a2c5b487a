/// One entry the feedback service would send (docs/legacy-binary.md §4): a device token that
/// became unregistered, and when.
public struct FeedbackEntry: Sendable, Equatable, Encodable {
    /// The device token, lowercase hexadecimal.
    public var token: String
    /// When it became unregistered, seconds since 1970 UTC (the tuple's time_t).
    public var timestamp: Int64
    /// The environment of the feedback listener that reports it.
    public var environment: String

    /// Creates an entry.
    public init(token: String, timestamp: Int64, environment: String) {
        self.token = token
        self.timestamp = timestamp
        self.environment = environment
    }
}
