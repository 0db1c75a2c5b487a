import APNsCore
import Faults
import Recording

/// One setting of `mock-apns serve` as every reader knows it: its configuration-file key, its
/// command-line flag, the kind of value (with the range numbers must lie in), the default and
/// the help line. `ConfigurationSetting.all`, the one table, drives the file's top-level keys
/// (`ConfigurationFile.topLevelKeys`), the flags `CommandLineParser` accepts, the OPTIONS of
/// `--help` (`CommandLineHelp`) and the range checks of both readers; a test checks README's
/// option table ("Configuration") against it.
struct ConfigurationSetting: Sendable {
    /// What a value is.
    enum Kind: Sendable, Equatable {
        /// A command-line switch without a value.
        case flag
        /// `true` or `false` (in the file).
        case boolean
        /// Free text: a file path or a name.
        case text
        /// Free text that may be given more than once (a list in the file).
        case texts
        /// `HOST:PORT` (`HostPort`).
        case address
        /// A whole number in the range.
        case integer(ClosedRange<Int>)
        /// A number of seconds, worded by `expectation` (its bounds are checked by
        /// `Configuration.validate()`).
        case seconds(expectation: String)
        /// One of these names.
        case choice([String])
        /// An object or array of the configuration file (listeners, devices, faults, ...).
        case structure
    }

    /// The configuration file's key, dotted below the top level (`http2.maxConcurrentStreams`,
    /// `listeners[].port`); nil for a flag the file has no key for.
    let fileKey: String?
    /// The command-line flag (`--max-records`); nil for a file-only key.
    let flag: String?
    /// The flag's value as `--help` shows it (`N`, `HOST:PORT`); nil for a switch.
    let placeholder: String?
    let kind: Kind
    /// The default as `--help` ends the entry with `Default: ...`; nil for none shown.
    let defaultText: String?
    /// What the setting does, one sentence or a few, unwrapped.
    let help: String

    /// A setting with a flag (and a file key when `fileKey` is not nil).
    init(
        file fileKey: String?, flag: String?, _ placeholder: String?, _ kind: Kind,
        default defaultText: String? = nil, _ help: String
    ) {
        self.fileKey = fileKey
        self.flag = flag
        self.placeholder = placeholder
        self.kind = kind
        self.defaultText = defaultText
        self.help = help
    }

    /// A key only the configuration file has.
    init(file fileKey: String, _ kind: Kind) {
        self.init(file: fileKey, flag: nil, nil, kind, default: nil, "")
    }

    /// The integer range of an `.integer` setting (a programming error otherwise).
    var range: ClosedRange<Int> {
        guard case .integer(let range) = kind else { fatalError("\(flag ?? fileKey ?? "?") is not an integer") }
        return range
    }

    /// The names of a `.choice` setting.
    var choices: [String] {
        guard case .choice(let names) = kind else { return [] }
        return names
    }

    /// The setting of `flag` (a programming error when the table has none).
    static func flag(_ flag: String) -> ConfigurationSetting {
        guard let setting = all.first(where: { $0.flag == flag }) else { fatalError("no setting for \(flag)") }
        return setting
    }

    /// The setting of file key `key`.
    static func file(_ key: String) -> ConfigurationSetting {
        guard let setting = all.first(where: { $0.fileKey == key }) else { fatalError("no setting for \(key)") }
        return setting
    }

    /// Every setting: the flags in the order of `--help`, then the keys only the file has.
    ///
    /// Ranges: records take about 1 KB each, so ten million is already 10 GB of memory; events a
    /// few hundred bytes each; HTTP/2 allows 0 to 2^31-1 concurrent streams, but 0 would refuse
    /// every push; 1024 workers is far above any core count (a larger number is a typo, not a
    /// wish).
    static let all: [ConfigurationSetting] = {
        let defaults = Configuration()
        let listener = defaults.listeners[0]
        func names<C: CaseIterable & RawRepresentable>(_ type: C.Type) -> [String] where C.RawValue == String {
            C.allCases.map(\.rawValue)
        }
        return [
            ConfigurationSetting(
                file: nil, flag: "--config", "FILE", .text, "JSON configuration file (see CONFIGURATION FILE)."),
            ConfigurationSetting(
                file: "listeners[].listen", flag: "--listen", "HOST:PORT", .address, default: listener.address,
                "Address of the first listener; port 0 picks a free port; IPv6 as [::1]:2197."),
            ConfigurationSetting(
                file: "listeners[].environment", flag: "--environment", "ENV", .choice(names(APNsEnvironment.self)),
                default: listener.environment.rawValue, "Environment of the first listener: sandbox or production."),
            ConfigurationSetting(
                file: "listeners[].plaintext", flag: "--plaintext", nil, .flag, default: "TLS",
                "Serve the first listener in cleartext HTTP/2 (prior knowledge, no TLS)."),
            ConfigurationSetting(
                file: "listeners[].tls.certificate", flag: "--tls-cert", "FILE", .text,
                default: "an ephemeral self-signed certificate made at start",
                "PEM certificate of the first listener; give with --tls-key."),
            ConfigurationSetting(
                file: "listeners[].tls.key", flag: "--tls-key", "FILE", .text, "PEM private key for --tls-cert."),
            ConfigurationSetting(
                file: "listeners[].auth", flag: "--auth", "MODE", .choice(names(AuthModeSetting.self)),
                default: listener.auth.rawValue,
                "Provider authentication on the first listener. none: no credential checks. permissive: a provider "
                    + "token, when present, must be well-formed, unexpired and not from the future; its signature is "
                    + "checked when its key is configured (--keys); unknown keys are accepted and flagged in the "
                    + "record. strict: every push needs a valid token from a configured key, or a trusted client "
                    + "certificate."),
            ConfigurationSetting(
                file: "listeners[].clientCAs", flag: "--client-ca", "FILE", .text, default: "none",
                "PEM CA whose client certificates the first listener trusts; turns on mutual TLS (the listener asks "
                    + "for a client certificate). Not with --plaintext."),
            ConfigurationSetting(
                file: "keys", flag: "--keys", "FILE", .text, default: "none",
                "JSON manifest of the provider-token keys (key ID, team ID, key file, scope, environments), like "
                    + "fixtures/auth/keys.json."),
            ConfigurationSetting(
                file: "clockOffsetSeconds", flag: "--clock-offset", "SECONDS",
                .seconds(expectation: ConfigurationLimits.clockOffsetExpectation),
                default: String(Int(defaults.clockOffsetSeconds)),
                "Added to the clock for provider-token time checks, so that a token expires without waiting (4000 makes "
                    + "a fresh token expired); may be negative."),
            ConfigurationSetting(
                file: "control", flag: "--control", "HOST:PORT|off", .address, default: defaults.control?.address,
                "Address of the HTTP/1.1 control API, or off for none."),
            ConfigurationSetting(
                file: "control.allowHosts", flag: "--control-allow-host", "NAME", .texts, default: "none",
                "A Host name the control API answers besides loopback addresses and localhost (any port); may be "
                    + "repeated; * answers any. Other names are refused 403, so a DNS-rebinding web page cannot "
                    + "reach it."),
            ConfigurationSetting(
                file: "control.allowOrigins", flag: "--control-allow-origin", "ORIGIN", .texts, default: "none",
                "A web origin (http://host:port) that may change state through the control API and gets CORS "
                    + "headers; may be repeated. Without one, requests that change state from any origin but the "
                    + "API's own are refused 403, and no CORS header is sent."),
            ConfigurationSetting(
                file: "control.token", flag: "--control-token", "TOKEN", .text, default: "none",
                "Bearer token every control request must carry (Authorization: Bearer TOKEN; 401 otherwise); "
                    + "also MOCK_APNS_CONTROL_TOKEN. Never logged."),
            ConfigurationSetting(
                file: "control.insecureNoToken", flag: "--control-insecure-no-token", nil, .flag,
                default: "refuse to start",
                "Start even though the control API is bound beyond loopback without a token."),
            ConfigurationSetting(
                file: "readyFile", flag: "--ready-file", "FILE", .text, default: "none",
                "Once every listener and the control API listen, write their bound ports and URLs there as JSON "
                    + "(a temporary file renamed into place, so a reader never sees half of it); with port 0, the "
                    + "way to learn the ports without reading the start-up lines."),
            ConfigurationSetting(
                file: "journal", flag: "--journal", "FILE", .text, default: "none (records in memory only)",
                "Append every delivery record, correction and clear to FILE as newline-delimited JSON and read it "
                    + "back at start, so a restart or a crash keeps the history and seq goes on after the last one "
                    + "(README \"Journal\"). A torn last line is dropped with a warning; a bad line before it "
                    + "refuses the start."),
            ConfigurationSetting(
                file: "journalSync", flag: "--journal-sync", "always|batch|never", .choice(names(JournalSync.self)),
                default: defaults.journalSync.rawValue,
                "always: a push is answered only once its record is synced to disk (group commit per loop pass), so "
                    + "SIGKILL loses no answered push; batch: synced in batches, answers do not wait; never: "
                    + "written, not synced."),
            ConfigurationSetting(
                file: "maxRecords", flag: "--max-records", "N", .integer(1...10_000_000),
                default: String(defaults.maxRecords),
                "Delivery records kept before the oldest are dropped, at least 1. A record takes about 210 bytes "
                    + "plus its body; a push repeating its connection's previous one, about 100."),
            ConfigurationSetting(
                file: "maxEvents", flag: "--max-events", "N", .integer(1...10_000_000),
                default: String(defaults.maxEvents),
                "Connection events (GOAWAY, resets, SETTINGS, stalls, listener conditions, opened, closed) kept "
                    + "before the oldest are dropped, at least 1."),
            ConfigurationSetting(
                file: "maxFaultRules", flag: "--max-fault-rules", "N", .integer(1...1_000_000),
                default: String(defaults.maxFaultRules),
                "Fault rules held at once, at least 1: a POST /v1/faults (or a configuration) beyond it is refused "
                    + "with 400. Rules naming a token, topic or listener are indexed by it, so rules for other "
                    + "pushes cost nothing measurable; each rule naming none of these is tried for every push."),
            ConfigurationSetting(
                file: "maxGateways", flag: "--max-gateways", "N", .integer(0...100_000),
                default: String(defaults.maxGateways),
                "Isolated gateways held at once (POST /v1/gateways beyond it is a 429; 0: none can be made). "
                    + "Each is a listener with its own records, events and rules, served by the same threads "
                    + "(docs/testing.md \"Isolated gateways\")."),
            ConfigurationSetting(
                file: "gatewayMaxRecords", flag: "--gateway-max-records", "N", .integer(1...10_000_000),
                default: String(defaults.gatewayMaxRecords),
                "Delivery records an isolated gateway keeps when its POST /v1/gateways names no maxRecords; a "
                    + "gateway may ask for up to maxRecords (or this, when larger)."),
            ConfigurationSetting(
                file: "controlIdleTimeoutSeconds", flag: "--control-idle-timeout", "SECONDS", .integer(1...3600),
                default: String(defaults.controlIdleTimeoutSeconds),
                "A control API connection silent this long while its request is read, or between requests, is "
                    + "closed (a long poll being answered is not timed out). The request line and headers may "
                    + "take at most 1 MiB (more: 413, closed), the body 1 MiB."),
            ConfigurationSetting(
                file: "controlMaxStreams", flag: "--control-max-streams", "N", .integer(0...10_000),
                default: String(defaults.controlMaxStreams),
                "Live streams (GET /v1/deliveries/stream, /v1/events/stream) open at once; one more is answered "
                    + "503."),
            ConfigurationSetting(
                file: "controlStreamBufferBytes", flag: "--control-stream-buffer", "BYTES",
                .integer(65_536...1_073_741_824), default: String(defaults.controlStreamBufferBytes),
                "Bytes a live stream may have waiting unsent: it writes only below this, and a consumer whose "
                    + "output stays at it for 2 s with records waiting is cut off (a cutoff message naming the "
                    + "last seq sent)."),
            ConfigurationSetting(
                file: "registry", flag: "--registry", "open|closed", .choice(names(RegistryMode.self)),
                default: defaults.validation.registry.rawValue,
                "open accepts any well-formed device token; closed accepts only registered devices."),
            ConfigurationSetting(
                file: "tokenLength", flag: "--token-length", "N",
                .integer(2...max(2, defaults.validation.maxTokenLength)),
                default: "any even length, at most \(defaults.validation.maxTokenLength)",
                "Require device tokens of exactly N hex characters (even, e.g. 64)."),
            ConfigurationSetting(
                file: "http2.maxConcurrentStreams", flag: "--max-concurrent-streams", "N",
                .integer(1...Int(Int32.max)), default: String(defaults.maxConcurrentStreams),
                "HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS, 1 to 2147483647."),
            ConfigurationSetting(
                file: "http2.streamProfile", flag: "--stream-profile", "PROFILE", .choice(names(StreamProfile.self)),
                default: defaults.streamProfile.rawValue,
                "fixed keeps the stream limit; apple-observed drops it to 1 after a rejected push and restores it "
                    + "after the next accepted one, as APNs does."),
            ConfigurationSetting(
                file: "workers", flag: "--workers", "N", .integer(0...1024),
                default: String(defaults.workers),
                "Event-loop threads, 0 to 1024; 0 means one per usable CPU core (online, and allowed by taskset or "
                    + "a cpuset) but one, at least one, leaving a core for the sender under test."),
            ConfigurationSetting(
                file: "drainTimeoutSeconds", flag: "--drain-timeout", "SECONDS",
                .seconds(expectation: ConfigurationLimits.drainTimeoutExpectation),
                default: String(Int(defaults.drainTimeoutSeconds)),
                "On stop, the longest wait for in-flight streams."),
            ConfigurationSetting(
                file: "idleTimeoutSeconds", flag: "--idle-timeout", "SECONDS",
                .seconds(expectation: ConfigurationLimits.idleTimeoutExpectation), default: "none (kept open)",
                "End connections idle this long (no request)."),
            ConfigurationSetting(
                file: "idleAction", flag: "--idle-action", "reset|goaway|blackhole", .choice(names(IdleAction.self)),
                default: defaults.idleAction.rawValue,
                "How idle connections end: reset (TCP RST, as observed), goaway (GOAWAY IdleTimeout) or blackhole "
                    + "(nothing answered any more, not even PING; the socket kept open)."),
            ConfigurationSetting(
                file: "scenarios", flag: "--fault-scenario", "NAME", .choice(names(FaultScenario.self)),
                default: "none",
                "Inject a fault scenario from the start, with default parameters: apns-outage (503 to every push), "
                    + "flaky (500 to 10%), token-expiry (403 ExpiredProviderToken) or graceful-restart (GOAWAY once "
                    + "per connection); throttled needs parameters, so give it in the file's scenarios. Tried after "
                    + "the file's faults; manage faults at run time at /v1/faults."),
            ConfigurationSetting(
                file: nil, flag: "--channel-management", "HOST", .text, default: "off",
                "Add two listeners for Apple's channel-management hosts at their ports, HOST:2195 "
                    + "(manage-sandbox, sandbox: api-manage-broadcast.sandbox.push.apple.com) and HOST:2196 "
                    + "(manage-production, production: api-manage-broadcast.push.apple.com), with the first "
                    + "listener's TLS and authentication; every listener serves channel management anyway. "
                    + "Give each Apple host a loopback address of its own (README \"Broadcast\"); a port "
                    + "another listener holds on the same address is refused at start."),
            ConfigurationSetting(
                file: "binary.listen", flag: "--binary", "HOST:PORT", .address, default: "off",
                "Address of a legacy binary provider API listener (commands 0, 1, 2; Apple's port 2195), with the "
                    + "first listener's certificate and client CAs (docs/legacy-binary.md)."),
            ConfigurationSetting(
                file: "feedback.listen", flag: "--feedback", "HOST:PORT", .address, default: "off",
                "Address of a feedback service listener (Apple's port 2196): tuples of the tokens unregistered "
                    + "since the last read, then close."),
            ConfigurationSetting(
                file: "binary.topic", flag: "--binary-topic", "TOPIC", .text,
                default: "none: without a certificate topic a notification is status 3, missing topic",
                "Topic of binary notifications on connections whose client certificate names none, or that "
                    + "present none."),
            ConfigurationSetting(
                file: "binary.certificateRequired", flag: "--binary-without-certificate", nil, .flag,
                default: "a verified client certificate is required when --client-ca is given",
                "Serve binary and feedback connections that present no verified client certificate."),
            ConfigurationSetting(
                file: "logLevel", flag: "--log-level", "LEVEL", .choice(names(LogLevel.self)),
                default: defaults.logLevel.rawValue, "error, warning, info or debug."),
            // Keys only the file has.
            ConfigurationSetting(file: "listeners", .structure),
            ConfigurationSetting(file: "maxTokenLength", .integer(2...Int.max)),
            ConfigurationSetting(file: "lintsAsErrors", .boolean),
            ConfigurationSetting(file: "invalidPayloadReason", .text),
            ConfigurationSetting(file: "devices", .structure),
            ConfigurationSetting(file: "deviceModel", .structure),
            ConfigurationSetting(file: "broadcast", .structure),
            ConfigurationSetting(file: "faults", .structure),
        ]
    }()

    /// The top-level keys of the configuration file, in the order of the table.
    static var topLevelFileKeys: [String] {
        var keys: [String] = []
        for setting in all {
            guard let key = setting.fileKey else { continue }
            let top = String(key.prefix { $0 != "." && $0 != "[" })
            if !keys.contains(top) { keys.append(top) }
        }
        return keys
    }
}
