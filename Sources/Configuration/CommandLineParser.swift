import APNsCore
import CommandLineOptions
import Faults
import JSONInput
import JSONSupport
import Recording

/// Turns `mock-apns` arguments into a command: `mock-apns [serve] [options]`, `--help`, `--version`.
///
/// Options override the configuration file's values (see `CommandLineHelp`). Parsing loads the
/// `--config` file but leaves the TLS files, client CAs and key manifest to the server: their
/// existence is checked at start.
public enum CommandLineParser {
    private typealias Option = OptionScanner.Option

    /// Every option, in the order of the help text: the flags of `ConfigurationSetting.all`,
    /// then help and version. Scanned by the one `OptionScanner` (as `send` and `jwt` are):
    /// options start with `-`, none repeats, an empty value is a missing one.
    static let scanner = OptionScanner(
        options: ConfigurationSetting.all.compactMap { setting in
            setting.flag.map { Option(name: $0, value: setting.placeholder, repeatable: setting.kind == .texts) }
        } + [
            Option(name: "--help", value: nil), Option(name: "-h", value: nil), Option(name: "--version", value: nil),
        ],
        takesPositional: false, optionsStartWith: "-", emptyValuesAllowed: false)

    /// Every option, in the order of the help text.
    static var options: [OptionScanner.Option] { scanner.options }

    /// Subcommands, for suggestions. `serve` is the default; `send` and `jwt` are dispatched by
    /// the executable before this parser runs (APNsTools).
    static let commands = ["serve", "send", "jwt", "help", "version"]

    /// The environment variable holding the control API's bearer token (below `--control-token`,
    /// above the file's `control.token`).
    public static let controlTokenVariable = "MOCK_APNS_CONTROL_TOKEN"

    /// Parses the arguments after the program name (`args` excludes argv[0]).
    ///
    /// `--help`/`-h` anywhere wins, then `--version`. Otherwise the result is `.serve` with the
    /// default configuration, or the `--config` file's, overridden by `environment`
    /// (`MOCK_APNS_CONTROL_TOKEN`), then by the flags, and validated.
    public static func parse(
        _ args: [String], environment: [String: String] = [:]
    ) throws(CommandLineError) -> CommandLineCommand {
        if args.contains("--help") || args.contains("-h") || args.first == "help" {
            return .help(CommandLineHelp.text)
        }
        if args.contains("--version") || args.first == "version" {
            return .version("mock-apns \(MockAPNsVersion.string)")
        }
        var rest = args[...]
        if let first = rest.first, !first.hasPrefix("-") {
            guard first == "serve" else {
                let suggestion = ClosestMatch.hint(first, among: commands, quote: { "'\($0)'" })
                throw CommandLineError(
                    message: "unknown command '\(first)'\(suggestion); commands: \(commands.joined(separator: ", "))")
            }
            rest = rest.dropFirst()
        }
        let (values, lists) = try collect(rest)
        return .serve(try configuration(from: values, lists: lists, environment: environment))
    }

    /// The raw value of each option given (`""` for flags; the first of a repeatable one), and
    /// every value of each, checking names, values and repeats.
    private static func collect(_ args: ArraySlice<String>) throws(CommandLineError) -> (
        [String: String], [String: [String]]
    ) {
        do {
            // Only the `.texts` settings repeat.
            let values = try scanner.scan(args).values
            return (values.mapValues { $0[0] }, values)
        } catch {
            switch error {
            case .unknownOption(let name):
                let suggestion = ClosestMatch.hint(name, among: options.map(\.name), quote: { "'\($0)'" })
                throw CommandLineError(message: "unknown option '\(name)'\(suggestion)")
            case .unexpectedArgument(let argument):
                throw CommandLineError(message: "unexpected argument '\(argument)'; options start with --")
            case .repeated(let name):
                throw CommandLineError(message: "option \(name) given more than once")
            case .missingValue(let name, let placeholder):
                throw CommandLineError(message: "option \(name) needs a value (\(placeholder))")
            case .valueForFlag(let name):
                throw CommandLineError(message: "option \(name) takes no value")
            }
        }
    }

    /// The configuration file (or defaults) with the options applied, validated.
    private static func configuration(
        from values: [String: String], lists: [String: [String]], environment: [String: String]
    ) throws(CommandLineError) -> Configuration {
        var configuration = Configuration()
        if let path = values["--config"] {
            do {
                configuration = try ConfigurationFile.load(path: path)
            } catch {
                throw CommandLineError(message: error.description, suggestsHelp: false)
            }
        }

        // The first listener: address, environment and transport.
        if let text = values["--listen"] {
            let address = try address(text, option: "--listen")
            (configuration.listeners[0].host, configuration.listeners[0].port) = (address.host, address.port)
        }
        if let text = values["--environment"] {
            configuration.listeners[0].environment = try choice(text, APNsEnvironment.self, option: "--environment")
        }
        let certificate = values["--tls-cert"]
        let key = values["--tls-key"]
        switch (certificate, key) {
        case (nil, nil): break
        case (_?, nil): throw CommandLineError(message: "--tls-cert needs --tls-key (give both or neither)")
        case (nil, _?): throw CommandLineError(message: "--tls-key needs --tls-cert (give both or neither)")
        case (let certificate?, let key?):
            guard values["--plaintext"] == nil else {
                throw CommandLineError(message: "--plaintext cannot be combined with --tls-cert and --tls-key")
            }
            configuration.listeners[0].tlsCertificatePath = certificate
            configuration.listeners[0].tlsKeyPath = key
            configuration.listeners[0].plaintext = false
        }
        if let clientCA = values["--client-ca"] {
            guard values["--plaintext"] == nil else {
                throw CommandLineError(message: "--plaintext cannot be combined with --client-ca")
            }
            configuration.listeners[0].clientCAPaths = [clientCA]
        }
        if values["--plaintext"] != nil {
            // Overrides a certificate and client CAs the file gave this listener.
            configuration.listeners[0].plaintext = true
            configuration.listeners[0].tlsCertificatePath = nil
            configuration.listeners[0].tlsKeyPath = nil
            configuration.listeners[0].clientCAPaths = []
        }
        if let text = values["--auth"] {
            configuration.listeners[0].auth = try choice(text, AuthModeSetting.self, option: "--auth")
        }
        if let path = values["--keys"] {
            configuration.keysManifestPath = path
        }
        if let path = values["--ready-file"] {
            configuration.readyFilePath = path
        }
        if let path = values["--journal"] {
            configuration.journalPath = path
        }
        if let text = values["--journal-sync"] {
            configuration.journalSync = try choice(text, JournalSync.self, option: "--journal-sync")
        }
        if let text = values["--clock-offset"] {
            guard let seconds = Double(text), seconds.isFinite else {
                throw CommandLineError(
                    message: "--clock-offset: expected \(ConfigurationLimits.clockOffsetExpectation), got '\(text)'")
            }
            configuration.clockOffsetSeconds = seconds
        }

        if let text = values["--control"] {
            if text == "off" {
                configuration.control = nil
            } else {
                let address = try address(text, option: "--control", alternative: " or off")
                // The file's names, origins and token stay.
                var control = configuration.control ?? ControlConfiguration()
                (control.host, control.port) = (address.host, address.port)
                configuration.control = control
            }
        }
        try applyControlAccess(values, lists: lists, environment: environment, to: &configuration)
        for setting in Configuration.integerFields {
            if let text = values[setting.flag] {
                configuration[keyPath: setting.field] = try integer(text, option: setting.flag)
            }
        }
        if let text = values["--registry"] {
            configuration.validation.registry = try choice(text, RegistryMode.self, option: "--registry")
        }
        if let text = values["--token-length"] {
            let maxTokenLength = configuration.validation.maxTokenLength
            let length = try integer(
                text, in: 2...max(2, maxTokenLength), option: "--token-length",
                expected: ConfigurationLimits.tokenLengthExpectation(maxTokenLength: maxTokenLength))
            guard length % 2 == 0 else {
                throw CommandLineError(
                    message:
                        "--token-length: expected \(ConfigurationLimits.tokenLengthExpectation(maxTokenLength: maxTokenLength)), got '\(text)'"
                )
            }
            configuration.validation.tokenLength = length
        }
        if let text = values["--max-concurrent-streams"] {
            configuration.maxConcurrentStreams = try integer(text, option: "--max-concurrent-streams")
        }
        if let text = values["--stream-profile"] {
            configuration.streamProfile = try choice(text, StreamProfile.self, option: "--stream-profile")
        }
        if let text = values["--workers"] {
            configuration.workers = try integer(text, option: "--workers")
        }
        if let text = values["--drain-timeout"] {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
                throw CommandLineError(
                    message: "--drain-timeout: expected \(ConfigurationLimits.drainTimeoutExpectation), got '\(text)'")
            }
            configuration.drainTimeoutSeconds = seconds
        }
        if let text = values["--idle-timeout"] {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0,
                seconds <= ConfigurationLimits.maxIdleTimeout
            else {
                throw CommandLineError(
                    message: "--idle-timeout: expected \(ConfigurationLimits.idleTimeoutFlagExpectation), got '\(text)'"
                )
            }
            configuration.idleTimeoutSeconds = seconds
        }
        if let text = values["--idle-action"] {
            configuration.idleAction = try choice(text, IdleAction.self, option: "--idle-action")
        }
        if let text = values["--log-level"] {
            configuration.logLevel = try choice(text, LogLevel.self, option: "--log-level")
        }
        if let text = values["--fault-scenario"] {
            // After the file's rules, so those are tried first.
            let scenario = try choice(text, FaultScenario.self, option: "--fault-scenario")
            do {
                configuration.faults += try FaultScenario.rules(named: scenario.rawValue)  // windows start now
            } catch  where scenario == .rollingRestart {
                // No file form either: the configuration file would refuse it the same way.
                throw CommandLineError(message: "--fault-scenario: \(error.message)")
            } catch {
                throw CommandLineError(
                    message: "--fault-scenario: \(text) needs parameters (\(error)); "
                        + "give it under \"scenarios\" in the configuration file")
            }
        }

        if let host = values["--channel-management"] {
            configuration.listeners += try channelManagementListeners(host, like: configuration.listeners[0])
        }
        for kind in BinaryListenerConfiguration.Kind.allCases {
            let option = "--" + kind.rawValue
            guard let text = values[option] else { continue }
            let address = try address(text, option: option)
            configuration.binaryListeners.removeAll { $0.kind == kind }
            configuration.binaryListeners.append(
                BinaryListenerConfiguration(kind: kind, host: address.host, port: address.port))
        }
        for option in ["--binary-topic", "--binary-without-certificate"] where values[option] != nil {
            // A flag for a listener that does not exist would do nothing, silently.
            let kinds: [BinaryListenerConfiguration.Kind] =
                option == "--binary-topic" ? [.binary] : BinaryListenerConfiguration.Kind.allCases
            guard configuration.binaryListeners.contains(where: { kinds.contains($0.kind) }) else {
                throw CommandLineError(
                    message: "\(option) needs a binary listener: give --binary HOST:PORT"
                        + (option == "--binary-topic" ? "" : " or --feedback HOST:PORT")
                        + " (or \"binary\" in the configuration file)")
            }
        }
        if let topic = values["--binary-topic"] {
            for index in configuration.binaryListeners.indices
            where configuration.binaryListeners[index].kind == .binary {
                configuration.binaryListeners[index].topic = topic
            }
        }
        if values["--binary-without-certificate"] != nil {
            for index in configuration.binaryListeners.indices {
                configuration.binaryListeners[index].certificateRequired = false
            }
        }

        // Flags can clash with the file or the defaults, e.g. --listen on the control port.
        do {
            try configuration.validate()
        } catch {
            var message = error.description
            if let host = values["--channel-management"], message.contains("conflicts with") {
                // Say which listeners the option made: the message names them by position.
                let names = configuration.listeners.indices.filter {
                    configuration.listeners[$0].name.hasPrefix("manage-")
                }
                .map {
                    "listeners[\($0)], \(configuration.listeners[$0].name) (\(configuration.listeners[$0].address))"
                }
                message +=
                    "; --channel-management \(host) made " + names.joined(separator: " and ")
                    + ": give it a loopback address of its own (e.g. 127.0.0.4 for api-manage-broadcast.*, README \"Broadcast\")"
            }
            throw CommandLineError(message: message, suggestsHelp: false)
        }
        return configuration
    }

    /// `--control-allow-host`, `--control-allow-origin`, `--control-token` (or the environment's
    /// `MOCK_APNS_CONTROL_TOKEN`) and `--control-insecure-no-token`, on the control API.
    private static func applyControlAccess(
        _ values: [String: String], lists: [String: [String]], environment: [String: String],
        to configuration: inout Configuration
    ) throws(CommandLineError) {
        let hosts = lists["--control-allow-host"] ?? []
        let origins = lists["--control-allow-origin"] ?? []
        let tokenText = values["--control-token"] ?? environment[controlTokenVariable].flatMap { $0.isEmpty ? nil : $0 }
        let insecure = values["--control-insecure-no-token"] != nil
        guard !hosts.isEmpty || !origins.isEmpty || tokenText != nil || insecure else { return }
        guard var control = configuration.control else {
            let given = [
                "--control-allow-host", "--control-allow-origin", "--control-token", "--control-insecure-no-token",
            ]
            .first { values[$0] != nil }
            guard let given else { return }  // the environment's token, with the control API off
            throw CommandLineError(message: "\(given) needs the control API (not --control off)")
        }
        for host in hosts {
            if let problem = ControlAccessValues.hostProblem(host) {
                throw CommandLineError(message: "--control-allow-host: \(problem)")
            }
        }
        for origin in origins {
            if let problem = ControlAccessValues.originProblem(origin) {
                throw CommandLineError(message: "--control-allow-origin: \(problem)")
            }
        }
        control.allowedHosts += hosts.map { $0.lowercased() }
        control.allowedOrigins += origins
        if let tokenText {
            guard let token = ControlToken(tokenText) else {
                let source = values["--control-token"] != nil ? "--control-token" : controlTokenVariable
                throw CommandLineError(message: "\(source): expected \(ControlToken.expectation)")
            }
            control.token = token
        }
        if insecure { control.insecureNoToken = true }
        configuration.control = control
    }

    // MARK: Values

    /// `--channel-management HOST`: Apple's channel-management listeners (docs/broadcast.md A1),
    /// `manage-sandbox` at HOST:2195 (sandbox) and `manage-production` at HOST:2196 (production),
    /// each a copy of `first` (TLS, ALPN, authentication, client CAs, conditions) but for its
    /// name, address and environment. A port collision with another listener (the legacy binary
    /// listener's 2195, say) is refused by `Configuration.validate()`, before anything starts.
    static func channelManagementListeners(
        _ host: String, like first: ListenerConfiguration
    ) throws(CommandLineError) -> [ListenerConfiguration] {
        let ports: [(String, Int, APNsEnvironment)] = [
            ("manage-sandbox", ChannelManagementPort.sandbox, .sandbox),
            ("manage-production", ChannelManagementPort.production, .production),
        ]
        if host.split(separator: ":").count == 2 {
            throw CommandLineError(
                message: "--channel-management: give the host alone (e.g. 127.0.0.4), got '\(host)': the ports are "
                    + "Apple's, 2195 (sandbox) and 2196 (production)")
        }
        var made: [ListenerConfiguration] = []
        for (name, port, environment) in ports {
            let address = try address(
                HostPort(host: host, port: port).description, option: "--channel-management",
                alternative: " without the port (HOST, e.g. 127.0.0.4)")
            var listener = first
            (listener.name, listener.host, listener.port, listener.environment) =
                (name, address.host, address.port, environment)
            made.append(listener)
        }
        return made
    }

    private static func address(_ text: String, option: String, alternative: String = "") throws(CommandLineError)
        -> HostPort
    {
        do {
            return try HostPort.parse(text)
        } catch {
            throw CommandLineError(
                message: "\(option): expected \(HostPort.syntax)\(alternative), got '\(text)': \(error.hint)")
        }
    }

    /// The integer `text` gives, in the range of the setting of `option` (or `range`).
    private static func integer(
        _ text: String, in range: ClosedRange<Int>? = nil, option: String,
        expected: String? = nil
    ) throws(CommandLineError) -> Int {
        let range = range ?? ConfigurationSetting.flag(option).range
        guard let value = Int(text), range.contains(value) else {
            throw CommandLineError(
                message: "\(option): expected \(expected ?? ConfigurationLimits.expectation(range)), got '\(text)'")
        }
        return value
    }

    private static func choice<Choice>(_ text: String, _ type: Choice.Type, option: String) throws(CommandLineError)
        -> Choice
    where Choice: RawRepresentable & CaseIterable, Choice.RawValue == String {
        if let value = Choice(rawValue: text) { return value }
        let names = Choice.allCases.map(\.rawValue)
        let suggestion = ClosestMatch.hint(text, among: names, quote: { "'\($0)'" })
        throw CommandLineError(
            message: "\(option): expected one of \(names.joined(separator: ", ")), got '\(text)'\(suggestion)")
    }
}
