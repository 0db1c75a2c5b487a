/// What the `send` arguments ask for.
public enum SendCommandLine: Sendable, Equatable {
    /// Print this usage text and exit 0.
    case help(String)
    /// Send notifications with these options.
    case send(SendOptions)
}
