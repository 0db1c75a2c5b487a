/// What the `jwt` arguments ask for.
public enum JWTCommandLine: Sendable, Equatable {
    /// Print this usage text and exit 0.
    case help(String)
    /// Print a token made with these options.
    case sign(JWTOptions)
}
