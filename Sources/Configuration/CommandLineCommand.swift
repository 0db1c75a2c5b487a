/// What the command line asks `mock-apns` to do.
public enum CommandLineCommand: Sendable, Equatable {
    /// Run the gateway with this validated configuration (`mock-apns [serve] [options]`).
    case serve(Configuration)
    /// Print this usage text to standard output and exit 0 (`--help`, `-h`, `help`).
    case help(String)
    /// Print this version line to standard output and exit 0 (`--version`, `version`).
    case version(String)
}
