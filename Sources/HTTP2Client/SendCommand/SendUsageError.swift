/// A `send` command line that cannot run: unknown option, missing or bad value, unreadable
/// file. The command prints `description` to standard error and exits with status 2.
public struct SendUsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the option, e.g. `--count: expected an integer from 1 to 1000000, got 'x'`.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// `mock-apns send: <message>` and a pointer to `--help` on a second line.
    public var description: String { "mock-apns send: \(message)\nRun 'mock-apns send --help' for usage." }
}
