import Foundation
import HTTP2Client

/// The subcommands of `mock-apns` that are clients rather than the server: `jwt` and `send`
/// (with `--key FILE --key-id ID --team-id ID`; with `--binary HOST:PORT`, the legacy binary
/// protocol), `feedback` (the legacy feedback service), `export-apns` (a recorded push as a Simulator
/// `.apns` file, from a running server's control API) and `health` (whether a running server is
/// healthy, for container health checks). The executable hands every command line
/// here first.
public enum APNsTools {
    /// Runs `command` (the first argument after `mock-apns`) with the `arguments` after it,
    /// writing to the console.
    /// - Returns: the exit status, or `nil` when `command` is not one of these tools (the caller
    ///   goes on to serve).
    public static func main(command: String, arguments: [String]) -> Int32? {
        switch command {
        case "jwt": return JWTCommand.run(arguments)
        case "send" where arguments.contains(where: { $0 == "--binary" || $0.hasPrefix("--binary=") }):
            return BinarySendCommand.run(arguments)
        case "send": return SendWithKeyCommand.run(arguments)
        case "feedback": return FeedbackCommand.run(arguments)
        case "export-apns": return ExportAPNsCommand.run(arguments)
        case "health": return HealthCommand.run(arguments)
        default: return nil
        }
    }

    /// Now, in whole seconds since the Unix epoch: the default `iat`.
    public static func now() -> Int64 {
        Int64(Date().timeIntervalSince1970.rounded(.down))
    }
}
