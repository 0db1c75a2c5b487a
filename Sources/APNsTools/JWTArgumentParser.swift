import CommandLineOptions
import HTTP2Client

/// Turns the arguments after `mock-apns jwt` into `JWTOptions`. Pure: reads no files (the
/// command loads the key when it runs). Spelled like `send` (the same `OptionScanner`):
/// `--name VALUE` or `--name=VALUE`.
public enum JWTArgumentParser {
    /// Every option with the placeholder of its value, in the order of the help text; jwt takes
    /// no positional arguments.
    static let scanner = OptionScanner(
        options: [
            .init(name: "--key", value: "FILE"), .init(name: "--key-id", value: "ID"),
            .init(name: "--team-id", value: "ID"),
            .init(name: "--issued-at", value: "SECONDS"),
        ], takesPositional: false)

    /// Parses `arguments` (without `mock-apns jwt`). `--help` or `-h` anywhere wins.
    /// - Throws: `JWTUsageError` naming the option or argument that is wrong.
    public static func parse(_ arguments: [String]) throws(JWTUsageError) -> JWTCommandLine {
        if arguments.contains("--help") || arguments.contains("-h") { return .help(JWTHelp.text) }
        let scanned: OptionScanner.Scanned
        do {
            scanned = try scanner.scan(arguments)
        } catch {
            switch error {
            case .unknownOption(let name):
                let known = scanner.options.map(\.name).joined(separator: ", ")
                throw JWTUsageError("unknown option '\(name)' (jwt takes \(known))")
            case .unexpectedArgument(let argument):
                throw JWTUsageError("unexpected argument '\(argument)': jwt takes only options")
            case .repeated, .missingValue, .valueForFlag:
                throw JWTUsageError(error.message)
            }
        }
        // No option repeats: one value each.
        return .sign(try makeOptions(from: scanned.values.mapValues { $0[0] }))
    }

    /// Checks and converts the collected values; what is missing is reported after what is wrong.
    private static func makeOptions(from values: [String: String]) throws(JWTUsageError) -> JWTOptions {
        for option in scanner.options where values[option.name]?.isEmpty == true {
            throw JWTUsageError("\(option.name): the value is empty")
        }
        var issuedAt: Int64?
        if let text = values["--issued-at"] {
            guard let seconds = Int64(text) else {
                throw JWTUsageError("--issued-at: expected whole seconds since 1970 (an integer), got '\(text)'")
            }
            issuedAt = seconds
        }
        let required = ["--key", "--key-id", "--team-id"]
        let missing = required.filter { values[$0] == nil }
        guard missing.isEmpty else {
            throw JWTUsageError(
                "missing \(missing.joined(separator: " and ")): a token needs "
                    + "--key FILE --key-id ID --team-id ID")
        }
        return JWTOptions(
            keyPath: values["--key"]!, keyID: values["--key-id"]!, teamID: values["--team-id"]!,
            issuedAt: issuedAt)
    }
}
