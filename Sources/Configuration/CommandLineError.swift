/// A command line that cannot be run: an unknown command or option, a missing or bad value, or
/// a configuration (file or flags) that does not validate. The CLI prints `description` to
/// standard error and exits with status 2.
public struct CommandLineError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What was wrong, without the program name, e.g. `--workers: expected an integer from 0 to 1024, got 'x'`.
    public var message: String
    /// Whether `description` points at `--help`: true for usage mistakes, false for problems
    /// inside a configuration, where the message itself says what to change.
    public var suggestsHelp: Bool

    /// Creates an error; `suggestsHelp` defaults to true.
    public init(message: String, suggestsHelp: Bool = true) {
        self.message = message
        self.suggestsHelp = suggestsHelp
    }

    /// `mock-apns: <message>`, then `Run 'mock-apns --help' for usage.` on a second line when `suggestsHelp`.
    public var description: String {
        "mock-apns: \(message)" + (suggestsHelp ? "\nRun 'mock-apns --help' for usage." : "")
    }
}
