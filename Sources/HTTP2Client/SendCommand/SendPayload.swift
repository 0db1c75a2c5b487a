/// Where the notification payload comes from.
public enum SendPayload: Sendable, Equatable {
    /// The JSON text given on the command line.
    case inline(String)
    /// A file named with `@FILE`.
    case file(String)
    /// Standard input (`@-`).
    case standardInput
}
