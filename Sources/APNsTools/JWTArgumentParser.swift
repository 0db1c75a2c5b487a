/// Turns the arguments after `mock-apns jwt` into `JWTOptions`. Pure: reads no files (the
/// command loads the key when it runs). Spelled like `send`: `--name VALUE` or `--name=VALUE`.
public enum JWTArgumentParser {
    /// Every option with the placeholder of its value, in the order of the help text.
    static let options: [(name: String, value: String)] = [
        ("--key", "FILE"), ("--key-id", "ID"), ("--team-id", "ID"), ("--issued-at", "SECONDS"),
    ]

    /// Parses `arguments` (without `mock-apns jwt`). `--help` or `-h` anywhere wins.
    /// - Throws: `JWTUsageError` naming the option or argument that is wrong.
    public static func parse(_ arguments: [String]) throws(JWTUsageError) -> JWTCommandLine {
        if arguments.contains("--help") || arguments.contains("-h") { return .help(JWTHelp.text) }
        var values: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                throw JWTUsageError("unexpected argument '\(argument)': jwt takes only options")
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = options.first(where: { $0.name == name }) else {
                let known = options.map(\.name).joined(separator: ", ")
                throw JWTUsageError("unknown option '\(name)' (jwt takes \(known))")
            }
            guard values[name] == nil else { throw JWTUsageError("\(name) is given more than once") }
            if let inlineValue {
                values[name] = inlineValue
            } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                values[name] = arguments[index]
                index += 1
            } else {
                throw JWTUsageError("\(name) needs a value (\(option.value))")
            }
        }
        return .sign(try makeOptions(from: values))
    }

    /// Checks and converts the collected values; what is missing is reported after what is wrong.
    private static func makeOptions(from values: [String: String]) throws(JWTUsageError) -> JWTOptions {
        for (name, _) in options where values[name]?.isEmpty == true {
            throw JWTUsageError("\(name): the value is empty")
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
            throw JWTUsageError("missing \(missing.joined(separator: " and ")): a token needs "
                                + "--key FILE --key-id ID --team-id ID")
        }
        return JWTOptions(keyPath: values["--key"]!, keyID: values["--key-id"]!, teamID: values["--team-id"]!,
                          issuedAt: issuedAt)
    }
}
