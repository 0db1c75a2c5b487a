import CommandLineOptions
import HTTPFields
import JSONInput

/// Turns the arguments after `mock-apns send` into `SendOptions`. Pure: reads no files (the
/// command checks them when it runs).
public enum SendArgumentParser {
    private typealias Option = OptionScanner.Option

    /// Every option, in the order of the help text; the rest is positional (the payload).
    static let scanner = OptionScanner(
        options: [
            Option(name: "--url", value: "URL"),
            Option(name: "--cacert", value: "FILE"),
            Option(name: "--insecure", value: nil),
            Option(name: "--cert", value: "FILE"),
            Option(name: "--cert-key", value: "FILE"),
            Option(name: "--timeout", value: "SECONDS"),
            Option(name: "--device-token", value: "TOKEN"),
            Option(name: "--topic", value: "TOPIC"),
            Option(name: "--push-type", value: "TYPE"),
            Option(name: "--priority", value: "N"),
            Option(name: "--expiration", value: "SECONDS"),
            Option(name: "--collapse-id", value: "ID"),
            Option(name: "--apns-id", value: "UUID"),
            Option(name: "--authorization", value: "VALUE"),
            Option(name: "--key", value: "FILE"),
            Option(name: "--key-id", value: "ID"),
            Option(name: "--team-id", value: "ID"),
            Option(name: "--header", value: "'NAME: VALUE'", repeatable: true),
            Option(name: "--create-channel", value: nil),
            Option(name: "--storage-policy", value: "0|1"),
            Option(name: "--read-channel", value: "ID"),
            Option(name: "--delete-channel", value: "ID"),
            Option(name: "--list-channels", value: nil),
            Option(name: "--broadcast", value: "ID"),
            Option(name: "--count", value: "N"),
            Option(name: "--concurrency", value: "M"),
        ], takesPositional: true)

    /// The most requests one run sends, and the most streams it keeps open.
    static let maximumCount = 1_000_000
    static let maximumConcurrency = 1000

    /// Parses `arguments` (without `mock-apns send`). `--help` or `-h` anywhere wins.
    /// - Throws: `SendUsageError` naming the option or argument that is wrong.
    public static func parse(_ arguments: [String]) throws(SendUsageError) -> SendCommandLine {
        if arguments.contains("--help") || arguments.contains("-h") { return .help(SendHelp.text) }
        let scanned: OptionScanner.Scanned
        do {
            scanned = try scanner.scan(arguments)
        } catch .unknownOption(let name) {
            let suggestion = closest(to: name).map { " (did you mean '\($0)'?)" } ?? ""
            throw SendUsageError("unknown option '\(name)'\(suggestion)")
        } catch {
            throw SendUsageError(error.message)
        }
        return .send(try makeOptions(from: scanned.values, positional: scanned.positional))
    }

    /// Checks and converts the collected values.
    private static func makeOptions(from values: [String: [String]], positional: [String]) throws(SendUsageError)
        -> SendOptions
    {
        func single(_ name: String) -> String? { values[name]?.first }
        func text(_ name: String) throws(SendUsageError) -> String? {
            guard let value = single(name) else { return nil }
            guard !value.isEmpty else { throw SendUsageError("\(name): the value is empty") }
            return value
        }
        func integer(_ name: String, _ range: ClosedRange<Int>? = nil) throws(SendUsageError) -> Int? {
            guard let value = single(name) else { return nil }
            guard let number = Int(value), range?.contains(number) ?? true else {
                let expected = range.map { "an integer from \($0.lowerBound) to \($0.upperBound)" } ?? "an integer"
                throw SendUsageError("\(name): expected \(expected), got '\(value)'")
            }
            return number
        }

        var options = SendOptions()
        if let url = single("--url") { options.url = url }
        let endpoint: HTTP2Endpoint
        do {
            endpoint = try HTTP2Endpoint(url: options.url)
        } catch {
            guard case .invalidURL(_, let reason) = error else { throw SendUsageError("--url: \(error)") }
            throw SendUsageError("--url: '\(options.url)': \(reason)")
        }

        if let token = single("--device-token") {
            guard !token.isEmpty else { throw SendUsageError("--device-token: the value is empty") }
            if let bad = token.first(where: { $0 == "/" || $0 == "?" || $0 == "#" || $0 == "%" || $0.isWhitespace }) {
                throw SendUsageError("--device-token: '\(bad)' cannot appear in the request path /3/device/TOKEN")
            }
            options.deviceToken = token
        }
        options.topic = try text("--topic")
        options.pushType = try text("--push-type")
        options.priority = try integer("--priority")
        options.expiration = try integer("--expiration", 0...Int(UInt32.max))
        options.collapseID = try text("--collapse-id")
        options.apnsID = try text("--apns-id")
        options.authorization = try text("--authorization")
        options.providerKey = try providerKey(values)
        for field in values["--header"] ?? [] {
            options.extraHeaders.append(try header(field))
        }

        options.tls.caCertificatePath = try text("--cacert")
        options.tls.certificatePath = try text("--cert")
        options.tls.keyPath = try text("--cert-key")
        options.tls.insecure = single("--insecure") != nil
        if options.tls.keyPath != nil && options.tls.certificatePath == nil {
            throw SendUsageError("--cert-key needs --cert (the client certificate it belongs to)")
        }
        if options.tls.insecure && options.tls.caCertificatePath != nil {
            throw SendUsageError("--insecure and --cacert contradict each other: give one")
        }
        if !endpoint.secure {
            let tlsFlags = ["--cacert", "--insecure", "--cert", "--cert-key"].filter { values[$0] != nil }
            if let first = tlsFlags.first {
                throw SendUsageError("\(first) needs an https:// URL; \(options.url) is cleartext")
            }
        }

        if let timeout = single("--timeout") {
            guard let seconds = Double(timeout), seconds > 0, seconds <= 86_400 else {
                throw SendUsageError("--timeout: expected seconds greater than 0 (at most 86400), got '\(timeout)'")
            }
            options.timeout = seconds
        }
        options.count = try integer("--count", 1...maximumCount) ?? 1
        options.concurrency = try integer("--concurrency", 1...maximumConcurrency) ?? 1

        options.channelAction = try channelAction(values)
        if let action = options.channelAction {
            guard values["--device-token"] == nil else {
                throw SendUsageError("--device-token is for device pushes; a channel request names no device")
            }
            guard options.topic != nil else {
                throw SendUsageError("missing --topic BUNDLE_ID (the app whose channels these are)")
            }
            if !action.takesPayload {
                guard positional.isEmpty else {
                    throw SendUsageError("a channel request takes no payload argument (only --broadcast does)")
                }
                return options
            }
        } else if values["--storage-policy"] != nil {
            throw SendUsageError("--storage-policy needs --create-channel")
        }

        // What is missing is reported after what is wrong.
        guard values["--device-token"] != nil || options.channelAction != nil else {
            throw SendUsageError("missing --device-token TOKEN (the device to notify)")
        }
        guard let payload = positional.first else {
            throw SendUsageError(
                "missing the payload: give the JSON, @FILE or @- (e.g. '{\"aps\":{\"alert\":\"Hello\"}}')")
        }
        guard positional.count == 1 else {
            let listed = positional.map { "'\($0)'" }.joined(separator: ", ")
            throw SendUsageError("expected one payload argument, got \(positional.count): \(listed) (quote the JSON)")
        }
        if payload == "@-" {
            options.payload = .standardInput
        } else if payload.hasPrefix("@") {
            guard payload.count > 1 else { throw SendUsageError("the payload '@' names no file: use @FILE or @-") }
            options.payload = .file(String(payload.dropFirst()))
        } else {
            options.payload = .inline(payload)
        }
        return options
    }

    /// At most one of `--create-channel` (with `--storage-policy`, default 1), `--read-channel`,
    /// `--delete-channel`, `--list-channels`, `--broadcast`.
    private static func channelAction(_ values: [String: [String]]) throws(SendUsageError) -> SendChannelAction? {
        let flags = ["--create-channel", "--read-channel", "--delete-channel", "--list-channels", "--broadcast"]
        let given = flags.filter { values[$0] != nil }
        guard let flag = given.first else { return nil }
        guard given.count == 1 else { throw SendUsageError("\(given.joined(separator: " and ")): give one") }
        func id() throws(SendUsageError) -> String {
            let value = values[flag]![0]
            guard !value.isEmpty else { throw SendUsageError("\(flag): the value is empty") }
            return value
        }
        switch flag {
        case "--create-channel":
            let text = values["--storage-policy"]?.first ?? "1"
            guard text == "0" || text == "1" else {
                throw SendUsageError(
                    "--storage-policy: expected 0 (no message stored) or 1 (most recent), got '\(text)'")
            }
            return .create(storagePolicy: Int(text)!)
        case "--read-channel": return .read(channelID: try id())
        case "--delete-channel": return .delete(channelID: try id())
        case "--list-channels": return .list
        default: return .broadcast(channelID: try id())
        }
    }

    /// The `--key FILE --key-id ID --team-id ID` trio: all three or none, and not with
    /// `--authorization` (both would set the same header).
    private static func providerKey(_ values: [String: [String]]) throws(SendUsageError) -> SendProviderKey? {
        let flags = ["--key", "--key-id", "--team-id"]
        guard flags.contains(where: { values[$0] != nil }) else { return nil }
        let missing = flags.filter { values[$0] == nil }
        guard missing.isEmpty else {
            throw SendUsageError(
                "missing \(missing.joined(separator: " and ")): a provider token needs "
                    + "--key FILE --key-id ID --team-id ID")
        }
        guard values["--authorization"] == nil else {
            throw SendUsageError("--key and --authorization both set the authorization header: give one")
        }
        var texts: [String] = []
        for flag in flags {
            let value = values[flag]![0]
            guard !value.isEmpty else { throw SendUsageError("\(flag): the value is empty") }
            texts.append(value)
        }
        return SendProviderKey(path: texts[0], keyID: texts[1], teamID: texts[2])
    }

    /// Parses `name: value` into a header field with a lowercase name.
    private static func header(_ field: String) throws(SendUsageError) -> HeaderField {
        guard let colon = field.firstIndex(of: ":"), colon != field.startIndex else {
            throw SendUsageError("--header: expected 'NAME: VALUE', got '\(field)'")
        }
        let name = field[..<colon].trimmingSpaces()
        let value = field[field.index(after: colon)...].trimmingSpaces()
        let tokenCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~")
        guard !name.isEmpty, name.allSatisfy({ tokenCharacters.contains($0) }) else {
            throw SendUsageError("--header: '\(name)' is not a valid header name (in '\(field)')")
        }
        return HeaderField(name: name.lowercased(), value: value)
    }

    /// The known option nearest to `name` by edit distance, when close enough to be a typo
    /// (up to two edits, or one per three characters for long names).
    private static func closest(to name: String) -> String? {
        let candidates = scanner.options.map(\.name) + ["--help"]
        return ClosestMatch.find(name, among: candidates, maxDistance: max(2, name.count / 3))
    }
}

private extension Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
