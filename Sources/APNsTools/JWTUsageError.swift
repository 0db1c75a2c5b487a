/// A `jwt` command line that cannot run: unknown option, missing or bad value, unreadable key
/// file. The command prints `description` to standard error and exits with status 2.
public struct JWTUsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the option, e.g. `missing --team-id`.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// `mock-apns jwt: <message>` and a pointer to `--help` on a second line.
    public var description: String { "mock-apns jwt: \(message)\nRun 'mock-apns jwt --help' for usage." }
}
