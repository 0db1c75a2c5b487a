import APNsCore
import Broadcast
import Devices
import Faults
import Foundation
import JSONInput
import JSONSupport
import LegacyBinary
import Recording

/// Reads a `Configuration` from a JSON document.
///
/// The document is one JSON object, read as JSON5 (`ConfigurationFile.document(_:)`): `//` and `/* */`
/// comments and trailing commas are allowed so a file can explain itself (see
/// `fixtures/mock-apns.example.json`); a key written twice is refused, and a syntax error names
/// its line and column. Every key is optional and defaults as in
/// `Configuration()`; an unknown key is an error, so a typo never passes silently. Top-level
/// keys: `listeners`, `control`, `maxRecords`, `maxEvents`, `maxFaultRules`, `maxGateways`, `gatewayMaxRecords`, `controlIdleTimeoutSeconds`, `controlMaxStreams`, `controlStreamBufferBytes`, `registry`, `tokenLength`, `maxTokenLength`,
/// `lintsAsErrors`, `invalidPayloadReason`, `devices`, `http2`, `workers`, `logLevel`,
/// `drainTimeoutSeconds`, `keys`, `clockOffsetSeconds`, `faults`, `scenarios`, `deviceModel`, `readyFile`, `journal`,
/// `journalSync`.
///
/// `faults` (rule objects, as `POST /v1/faults` takes them) and `scenarios`
/// (`{"name", "parameters"}`) both become `Configuration.faults`: the explicit rules first, then
/// each scenario's rules in order, so an explicit rule is tried before any scenario's.
public enum ConfigurationFile {
    /// The top-level keys, from the settings table (`ConfigurationSetting.all`).
    static let topLevelKeys = ConfigurationSetting.topLevelFileKeys
    static let listenerKeys = [
        "name", "host", "port", "listen", "environment", "plaintext", "tls", "alpn", "auth", "clientCAs",
        "conditions",
    ]
    static let tlsKeys = ["certificate", "key"]
    static let controlKeys = ["host", "port", "allowHosts", "allowOrigins", "token", "insecureNoToken"]
    static let deviceKeys = ["token", "topic", "environment", "unregisteredAt", "expired"] + deviceModelKeys
    /// The keys that make a configured device a virtual device (docs/device-model.md §7), as in
    /// `PUT /v1/devices/{token}`.
    static let deviceModelKeys = [
        "virtual", "connectivity", "appState", "settings", "capabilities", "categories", "foregroundPresentation",
        "installed", "channels",
    ]
    static let conditionsKeys = ListenerConditionsUpdate.fields
    static let http2Keys = ["maxConcurrentStreams", "streamProfile"]
    /// The keys of `deviceModel`: the virtual devices' settings (`DeviceModelOptions`,
    /// docs/device-model.md §5).
    static let deviceModelOptionKeys = [
        "maxStorageSeconds", "backgroundBudget", "backgroundBudgetWindowSeconds", "overBudget",
        "lowPowerBurstSeconds", "lowPowerBurstJitterSeconds", "seed", "historyLimit", "removedApp", "lowPowerHoldLimit",
    ]

    /// The keys of `broadcast` (`BroadcastOptions`, docs/broadcast.md §3).
    static let broadcastKeys = [
        "disabledBundleIds", "channelLimit", "acceptsPriority1", "rejectsStartEvent", "lintsAsErrors",
        "legacyAPNSwiftForms", "storedMessageSeconds", "totalChannelLimit", "channels",
    ]
    /// The keys of one of `broadcast.channels` (`ConfiguredChannel`).
    static let configuredChannelKeys = ["id", "bundleId", "environment", "messageStoragePolicy"]

    /// Parses and validates a configuration document (UTF-8 JSON). File paths (TLS, client CAs,
    /// key manifest) are kept as written; `load(path:)` resolves relative ones. Scenario windows
    /// start now.
    public static func parse(_ bytes: [UInt8]) throws(ConfigurationError) -> Configuration {
        try parse(bytes, nowMilliseconds: Int64(Date().timeIntervalSince1970 * 1000))
    }

    /// `parse(_:)` with scenario durations and windows counted from `nowMilliseconds`
    /// (milliseconds since the Unix epoch).
    static func parse(_ bytes: [UInt8], nowMilliseconds: Int64) throws(ConfigurationError) -> Configuration {
        let document = try Self.document(bytes)
        guard case .object = document else {
            throw ConfigurationError(
                field: "", message: "expected a JSON object at the top level, got \(document.rendered)")
        }
        var configuration: Configuration
        do {
            configuration = try StrictJSONDecoder(userInfo: [ConfigurationDocument.nowKey: nowMilliseconds])
                .decode(ConfigurationDocument.self, from: document).configuration
        } catch {
            throw ConfigurationError(error)
        }
        try configuration.validate()
        return configuration
    }

    /// The configuration the document of `decoder` (an object) describes, not yet validated;
    /// unknown keys are refused by the decoder once it returns.
    static func read(_ decoder: any Decoder, nowMilliseconds: Int64) throws(ConfigurationError) -> Configuration {
        let root = try ConfigurationObject(decoder, keys: topLevelKeys)
        var configuration = Configuration()

        if let listeners = root["listeners"] {
            guard case .array = listeners else {
                throw ConfigurationError(
                    field: "listeners", message: "expected an array of listener objects, got \(listeners.rendered)")
            }
            configuration.listeners = []
            for element in try root.elements("listeners") {
                configuration.listeners.append(try listener(element))
            }
        }
        if let control = root["control"] {
            configuration.control = try self.control(control, in: root)
        }
        for kind in BinaryListenerConfiguration.Kind.allCases {
            if let value = root[kind.rawValue], value != .null {
                configuration.binaryListeners.append(try binaryListener(kind, value, in: root))
            }
        }
        for setting in Configuration.integerFields {
            if let value = try root.integer(setting.file, in: ConfigurationSetting.file(setting.file).range) {
                configuration[keyPath: setting.field] = value
            }
        }
        configuration.validation = try validationOptions(root)
        // The configured virtual devices by their index in `devices`, for their `channels`.
        var subscribed: [(index: Int, device: VirtualDevice)] = []
        if let devices = root["devices"] {
            guard case .array = devices else {
                throw ConfigurationError(
                    field: "devices", message: "expected an array of device objects, got \(devices.rendered)")
            }
            for (index, element) in try root.elements("devices").enumerated() {
                let (registration, virtual) = try device(element)
                configuration.devices.append(registration)
                if let virtual {
                    configuration.virtualDevices.append(virtual)
                    subscribed.append((index, virtual))
                }
            }
        }
        if root["deviceModel"] != nil {
            configuration.deviceModel = try deviceModel(
                ConfigurationObject(root.decoder("deviceModel"), keys: deviceModelOptionKeys))
        }
        if root["broadcast"] != nil {
            configuration.broadcast = try broadcast(
                ConfigurationObject(root.decoder("broadcast"), keys: broadcastKeys))
        }
        try checkSubscriptions(subscribed, channels: configuration.broadcast.channels)
        if root["http2"] != nil {
            let reader = try ConfigurationObject(root.decoder("http2"), keys: http2Keys)
            configuration.maxConcurrentStreams =
                try reader.integer(
                    "maxConcurrentStreams", in: ConfigurationSetting.file("http2.maxConcurrentStreams").range)
                ?? configuration.maxConcurrentStreams
            configuration.streamProfile =
                try reader.choice("streamProfile", StreamProfile.self) ?? configuration.streamProfile
        }
        configuration.workers =
            try root.integer("workers", in: ConfigurationSetting.file("workers").range) ?? configuration.workers
        configuration.logLevel = try root.choice("logLevel", LogLevel.self) ?? configuration.logLevel
        if let drain = root["drainTimeoutSeconds"] {
            guard let seconds = drain.number, seconds.isFinite, seconds >= 0 else {
                throw ConfigurationError(
                    field: "drainTimeoutSeconds",
                    message: "expected \(ConfigurationLimits.drainTimeoutExpectation), got \(drain.rendered)")
            }
            configuration.drainTimeoutSeconds = seconds
        }
        if let idle = root["idleTimeoutSeconds"], idle != .null {
            guard let seconds = idle.number, seconds.isFinite, seconds > 0 else {
                throw ConfigurationError(
                    field: "idleTimeoutSeconds",
                    message: "expected \(ConfigurationLimits.idleTimeoutExpectation), got \(idle.rendered)")
            }
            configuration.idleTimeoutSeconds = seconds
        }
        configuration.idleAction = try root.choice("idleAction", IdleAction.self) ?? configuration.idleAction
        if let keys = root["keys"], keys != .null {
            configuration.keysManifestPath = try keys.text(at: "keys", expected: "a file path or null")
        }
        if let ready = root["readyFile"], ready != .null {
            configuration.readyFilePath = try ready.text(at: "readyFile", expected: "a file path or null")
        }
        if let journal = root["journal"], journal != .null {
            configuration.journalPath = try journal.text(at: "journal", expected: "a file path or null")
        }
        configuration.journalSync = try root.choice("journalSync", JournalSync.self) ?? configuration.journalSync
        if let offset = root["clockOffsetSeconds"] {
            guard let seconds = offset.number, seconds.isFinite else {
                throw ConfigurationError(
                    field: "clockOffsetSeconds",
                    message: "expected \(ConfigurationLimits.clockOffsetExpectation), got \(offset.rendered)")
            }
            configuration.clockOffsetSeconds = seconds
        }
        // Explicit rules before the scenarios' (see the type's comment).
        if let faults = root["faults"] {
            configuration.faults = try faultRules(faults, in: root)
        }
        if let scenarios = root["scenarios"] {
            configuration.faults += try scenarioRules(scenarios, in: root, nowMilliseconds: nowMilliseconds)
        }
        return configuration
    }

    /// Reads, parses and validates the file at `path`. Relative paths (TLS certificate and key,
    /// client CAs, key manifest) are resolved against the file's directory, so a configuration
    /// can travel with its certificates and keys. Errors carry `path` in `ConfigurationError.file`.
    public static func load(path: String) throws(ConfigurationError) -> Configuration {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ConfigurationError(field: "", message: "no such file", file: path)
        }
        guard !isDirectory.boolValue else {
            throw ConfigurationError(field: "", message: "is a directory, not a configuration file", file: path)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(field: "", message: "cannot be read (check its permissions)", file: path)
        }
        var configuration: Configuration
        do {
            configuration = try parse(Array(data))
        } catch {
            var located = error
            located.file = path
            // A syntax error's message says where; any other names its field: find that in the text.
            if !error.field.isEmpty, !error.message.hasPrefix("not valid JSON"),
                !error.message.hasPrefix("the document is not valid UTF-8")
            {
                located.position = StrictJSONDecoder.position(of: error.field, in: Array(data), json5: true)
            }
            throw located
        }
        // A file named without a directory sits in the working directory, where relative paths already point.
        let directory = (path as NSString).deletingLastPathComponent
        func resolve(_ file: String) -> String {
            directory.isEmpty || file.hasPrefix("/") ? file : (directory as NSString).appendingPathComponent(file)
        }
        for index in configuration.listeners.indices {
            configuration.listeners[index].tlsCertificatePath = configuration.listeners[index].tlsCertificatePath.map(
                resolve)
            configuration.listeners[index].tlsKeyPath = configuration.listeners[index].tlsKeyPath.map(resolve)
            configuration.listeners[index].clientCAPaths = configuration.listeners[index].clientCAPaths.map(resolve)
        }
        configuration.keysManifestPath = configuration.keysManifestPath.map(resolve)
        configuration.readyFilePath = configuration.readyFilePath.map(resolve)
        configuration.journalPath = configuration.journalPath.map(resolve)
        return configuration
    }

    // MARK: Sections

    private static func listener(_ decoder: any Decoder) throws(ConfigurationError) -> ListenerConfiguration {
        let reader = try ConfigurationObject(decoder, keys: listenerKeys)
        var listener = ListenerConfiguration()
        listener.environment = try reader.choice("environment", APNsEnvironment.self) ?? listener.environment
        // Unnamed listeners take their environment's name: "sandbox" and "production" read well in records.
        listener.name = try reader.text("name") ?? listener.environment.rawValue
        if let listen = reader["listen"] {
            guard reader["host"] == nil, reader["port"] == nil else {
                throw ConfigurationError(
                    field: reader.field("listen"),
                    message: "give either \"listen\" or \"host\" and \"port\", not both")
            }
            let address = try listen.address(at: reader.field("listen"))
            (listener.host, listener.port) = (address.host, address.port)
        } else {
            listener.host =
                try reader.text("host", expected: "a host name or IP address").map(HostPort.unbracketed)
                ?? listener.host
            listener.port = try reader.integer("port", in: ConfigurationLimits.port) ?? listener.port
        }
        listener.plaintext = try reader.boolean("plaintext") ?? listener.plaintext
        if let tls = reader["tls"], tls != .null {
            let tlsReader = try ConfigurationObject(reader.decoder("tls"), keys: tlsKeys)
            listener.tlsCertificatePath = try tlsReader.text("certificate", expected: "a file path")
            listener.tlsKeyPath = try tlsReader.text("key", expected: "a file path")
        }
        listener.alpn = try reader.choice("alpn", ALPNPolicy.self) ?? listener.alpn
        listener.auth = try reader.choice("auth", AuthModeSetting.self) ?? listener.auth
        if let clientCAs = reader["clientCAs"] {
            // Whether a plaintext listener has any is checked by validate().
            guard case .array(let elements) = clientCAs else {
                throw ConfigurationError(
                    field: reader.field("clientCAs"),
                    message: "expected an array of PEM file paths, got \(clientCAs.rendered)")
            }
            listener.clientCAPaths = []
            for (index, element) in elements.enumerated() {
                listener.clientCAPaths.append(
                    try element.text(at: "\(reader.field("clientCAs"))[\(index)]", expected: "a file path"))
            }
        }
        if let conditions = reader["conditions"], conditions != .null {
            // ListenerConditionsUpdate's own decoding, the control API's: ranges checked in one place.
            listener.conditions = try reader.decode(ListenerConditionsUpdate.self, "conditions")
        }
        return listener
    }

    /// The control object's `allowHosts`, `allowOrigins` (arrays of strings), `token` (a string,
    /// never repeated in messages, or null for none) and `insecureNoToken`.
    private static func readAccess(_ reader: ConfigurationObject, into control: inout ControlConfiguration)
        throws(ConfigurationError)
    {
        for (key, problem) in [
            ("allowHosts", ControlAccessValues.hostProblem), ("allowOrigins", ControlAccessValues.originProblem),
        ] as [(String, (String) -> String?)] {
            guard let node = reader[key] else { continue }
            guard case .array(let items) = node else {
                throw ConfigurationError(
                    field: reader.field(key), message: "expected an array of strings, got \(node.rendered)")
            }
            var names: [String] = []
            for (index, item) in items.enumerated() {
                let field = reader.field(key) + "[\(index)]"
                let text = try item.text(at: field)
                if let problem = problem(text) { throw ConfigurationError(field: field, message: problem) }
                names.append(key == "allowHosts" ? text.lowercased() : text)
            }
            if key == "allowHosts" { control.allowedHosts = names } else { control.allowedOrigins = names }
        }
        if let node = reader["token"], node != .null {
            guard case .string(let text) = node, let token = ControlToken(text) else {
                throw ConfigurationError(field: reader.field("token"), message: "expected \(ControlToken.expectation)")
            }
            control.token = token
        }
        control.insecureNoToken = try reader.boolean("insecureNoToken") ?? false
    }

    /// The keys of a `binary` or `feedback` object.
    static let binaryListenerKeys = [
        "name", "listen", "environment", "certificateRequired", "tokenLength", "payloadLimit", "framedPayloadLimit",
        "unregistered", "topic", "idleTimeoutSeconds", "maxConnections", "certificateEnvironment",
    ]

    /// `"HOST:PORT"`, or an object of `binaryListenerKeys` (docs/legacy-binary.md §5); limits are
    /// checked by validate().
    private static func binaryListener(
        _ kind: BinaryListenerConfiguration.Kind, _ value: JSONNode, in root: ConfigurationObject
    ) throws(ConfigurationError) -> BinaryListenerConfiguration {
        var listener = BinaryListenerConfiguration(kind: kind)
        let path = root.field(kind.rawValue)
        switch value {
        case .string:
            let address = try value.address(at: path)
            (listener.host, listener.port) = (address.host, address.port)
        case .object:
            let reader = try ConfigurationObject(root.decoder(kind.rawValue), keys: binaryListenerKeys)
            listener.name = try reader.text("name") ?? listener.name
            if let listen = reader["listen"] {
                let address = try listen.address(at: reader.field("listen"))
                (listener.host, listener.port) = (address.host, address.port)
            }
            listener.environment = try reader.choice("environment", APNsEnvironment.self) ?? listener.environment
            listener.certificateRequired = try reader.boolean("certificateRequired") ?? listener.certificateRequired
            let bytes = 1...Int(UInt16.max)
            listener.limits.tokenLength =
                try reader.integer("tokenLength", in: 1...BinaryLimits.largestTokenLength)
                ?? listener.limits.tokenLength
            listener.limits.simplePayloadLimit =
                try reader.integer("payloadLimit", in: bytes) ?? listener.limits.simplePayloadLimit
            listener.limits.framedPayloadLimit =
                try reader.integer("framedPayloadLimit", in: bytes) ?? listener.limits.framedPayloadLimit
            listener.unregistered =
                try reader.choice("unregistered", BinaryListenerConfiguration.UnregisteredAnswer.self)
                ?? listener.unregistered
            listener.certificateEnvironment =
                try reader.choice(
                    "certificateEnvironment", BinaryListenerConfiguration.CertificateEnvironmentAnswer.self)
                ?? listener.certificateEnvironment
            if let topic = reader["topic"], topic != .null {
                listener.topic = try topic.text(at: reader.field("topic"), expected: "a bundle ID or null")
            }
            if let idle = reader["idleTimeoutSeconds"], idle != .null {
                guard let seconds = idle.number, seconds.isFinite, seconds > 0, seconds <= 86_400 else {
                    throw ConfigurationError(
                        field: reader.field("idleTimeoutSeconds"),
                        message: "expected seconds, more than 0 and at most 86400, or null, got \(idle.rendered)")
                }
                listener.idleTimeoutSeconds = seconds
            }
            listener.maxConnections =
                try reader.integer("maxConnections", in: 1...100_000) ?? listener.maxConnections
        default:
            throw ConfigurationError(
                field: path, message: "expected \"\(HostPort.syntax)\", an object or null, got \(value.rendered)")
        }
        return listener
    }

    /// `null` or `"off"`: no control server; `"HOST:PORT"`; or `{"host", "port", "allowHosts",
    /// "allowOrigins", "token", "insecureNoToken"}`.
    private static func control(_ value: JSONNode, in root: ConfigurationObject) throws(ConfigurationError)
        -> ControlConfiguration?
    {
        let path = root.field("control")
        switch value {
        case .null, .string("off"):
            return nil
        case .string:
            let address = try value.address(at: path)
            return ControlConfiguration(host: address.host, port: address.port)
        case .object:
            let reader = try ConfigurationObject(root.decoder("control"), keys: controlKeys)
            var control = ControlConfiguration()
            control.host =
                try reader.text("host", expected: "a host name or IP address").map(HostPort.unbracketed) ?? control.host
            control.port = try reader.integer("port", in: ConfigurationLimits.port) ?? control.port
            try readAccess(reader, into: &control)
            return control
        default:
            throw ConfigurationError(
                field: path,
                message: "expected {\"host\", \"port\"}, \"\(HostPort.syntax)\", \"off\" or null, got \(value.rendered)"
            )
        }
    }

    private static func validationOptions(_ root: ConfigurationObject) throws(ConfigurationError) -> ValidationOptions {
        var options = ValidationOptions()
        options.registry = try root.choice("registry", RegistryMode.self) ?? options.registry
        options.maxTokenLength =
            try root.integer("maxTokenLength", in: ConfigurationSetting.file("maxTokenLength").range)
            ?? options.maxTokenLength
        if let tokenLength = root["tokenLength"], tokenLength != .null {
            // The range and evenness against maxTokenLength are checked by validate().
            options.tokenLength = try tokenLength.integer(
                at: "tokenLength", in: 2...options.maxTokenLength,
                expected: ConfigurationLimits.tokenLengthExpectation(maxTokenLength: options.maxTokenLength))
        }
        options.lintsAsErrors = try root.boolean("lintsAsErrors") ?? options.lintsAsErrors
        if let reason = root["invalidPayloadReason"] {
            let candidates = Reason.allCases.filter { $0.status == 400 }.map(\.rawValue)
            guard case .string(let name) = reason, let parsed = Reason(rawValue: name) else {
                var message =
                    "expected a reason with status 400 (\(candidates.joined(separator: ", "))), got \(reason.rendered)"
                if case .string(let name) = reason, let near = ClosestMatch.find(name, among: candidates) {
                    message += " (did you mean \(InputError.quoted(near))?)"
                }
                throw ConfigurationError(field: "invalidPayloadReason", message: message)
            }
            options.invalidPayloadReason = parsed  // its status is checked by validate()
        }
        return options
    }

    private static func device(_ decoder: any Decoder) throws(ConfigurationError) -> (
        DeviceRegistration, VirtualDevice?
    ) {
        let reader = try ConfigurationObject(decoder, keys: deviceKeys)
        guard let tokenValue = reader["token"] else {
            throw ConfigurationError(field: reader.field("token"), message: "missing; every device needs its token")
        }
        // Stored lowercase (docs/apns-behaviour.md §9); hex and length are checked by validate().
        let token = try tokenValue.text(at: reader.field("token"), expected: "a hexadecimal string").lowercased()
        var device = DeviceRegistration(token: token, environment: .sandbox)
        if let topic = reader["topic"], topic != .null {
            device.topic = try topic.text(at: reader.field("topic"), expected: "a bundle ID or null")
        }
        device.environment = try reader.choice("environment", APNsEnvironment.self) ?? device.environment
        if let unregisteredAt = reader["unregisteredAt"], unregisteredAt != .null {
            device.unregisteredAt = try timestamp(unregisteredAt, at: reader.field("unregisteredAt"))
        }
        device.expired = try reader.boolean("expired") ?? device.expired
        return (device, try virtualDevice(reader, registration: device))
    }

    /// The virtual device a configured device describes when it has a device-model field
    /// (`deviceModelKeys`; `"virtual": false` with none other is a plain device), read as
    /// `VirtualDevice` reads it; a virtual device needs a topic.
    private static func virtualDevice(_ reader: ConfigurationObject, registration: DeviceRegistration)
        throws(ConfigurationError) -> VirtualDevice?
    {
        var object: [String: JSONNode] = [:]
        for key in deviceModelKeys { if let value = reader[key] { object[key] = value } }
        switch object["virtual"] {
        case nil, .bool(true)?: break
        case .bool(false)? where object.count == 1: return nil
        case .bool(false)?:
            throw ConfigurationError(
                field: reader.field("virtual"), message: "false, but device-model fields are given")
        case let other?:
            throw ConfigurationError(
                field: reader.field("virtual"), message: "expected true or false, got \(other.rendered)")
        }
        guard !object.isEmpty else { return nil }
        guard let topic = registration.topic else {
            throw ConfigurationError(
                field: reader.field("topic"), message: "required for a virtual device (the app's bundle ID)")
        }
        object["virtual"] = nil
        object["token"] = .string(registration.token)
        object["topic"] = .string(topic)
        object["environment"] = .string(registration.environment.rawValue)
        do {
            return try StrictJSONDecoder().decode(VirtualDevice.self, from: JSONNode.object(object))
        } catch {
            throw ConfigurationError(field: reader.field(error.path), message: error.message)
        }
    }

    /// The channel and broadcast settings (docs/broadcast.md §3): each key optional, its default
    /// `BroadcastOptions()`'s; `disabledBundleIds` an array of non-empty strings, `channelLimit`
    /// an integer from 1 to 1,000,000, `totalChannelLimit` from 1 to 10,000,000, `storedMessageSeconds` an integer from 1 to 2,592,000 (30 days).
    private static func broadcast(_ reader: ConfigurationObject) throws(ConfigurationError) -> BroadcastOptions {
        var options = BroadcastOptions()
        if let value = reader["disabledBundleIds"] {
            guard case .array(let elements) = value else {
                throw ConfigurationError(
                    field: reader.field("disabledBundleIds"),
                    message: "expected an array of bundle IDs, got \(value.rendered)")
            }
            for element in elements {
                guard case .string(let bundleID) = element, !bundleID.isEmpty else {
                    throw ConfigurationError(
                        field: reader.field("disabledBundleIds"),
                        message: "expected a non-empty bundle ID string, got \(element.rendered)")
                }
                options.disabledBundleIDs.insert(bundleID)
            }
        }
        options.channelLimit = try reader.integer("channelLimit", in: 1...1_000_000) ?? options.channelLimit
        options.totalChannelLimit =
            try reader.integer("totalChannelLimit", in: 1...10_000_000) ?? options.totalChannelLimit
        options.acceptsPriority1 = try reader.boolean("acceptsPriority1") ?? options.acceptsPriority1
        options.rejectsStartEvent = try reader.boolean("rejectsStartEvent") ?? options.rejectsStartEvent
        options.lintsAsErrors = try reader.boolean("lintsAsErrors") ?? options.lintsAsErrors
        options.legacyAPNSwiftForms = try reader.boolean("legacyAPNSwiftForms") ?? options.legacyAPNSwiftForms
        options.storedMessageSeconds =
            try reader.integer("storedMessageSeconds", in: 1...2_592_000) ?? options.storedMessageSeconds
        if let value = reader["channels"] {
            guard case .array = value else {
                throw ConfigurationError(
                    field: reader.field("channels"),
                    message: "expected an array of channel objects ({\"id\", \"bundleId\", \"environment\", "
                        + "\"messageStoragePolicy\"}), got \(value.rendered)")
            }
            var perApp: [String: Int] = [:]
            for element in try reader.elements("channels") {
                let channel = try configuredChannel(ConfigurationObject(element, keys: configuredChannelKeys))
                let path = InputError.path(element.codingPath)
                if let first = options.channels.firstIndex(where: { $0.id == channel.id }) {
                    throw ConfigurationError(
                        field: InputError.join(path, "id"),
                        message:
                            "duplicate channel ID \(InputError.quoted(channel.id)) (also \(reader.field("channels"))[\(first)])"
                    )
                }
                let app = "\(channel.environment.rawValue) \(channel.bundleID)"
                perApp[app, default: 0] += 1
                if perApp[app]! > options.channelLimit {
                    throw ConfigurationError(
                        field: path,
                        message: "more than channelLimit (\(options.channelLimit)) channels of \(channel.bundleID) in "
                            + channel.environment.rawValue)
                }
                options.channels.append(channel)
            }
            if options.channels.count > options.totalChannelLimit {
                throw ConfigurationError(
                    field: reader.field("channels"),
                    message:
                        "\(options.channels.count) channels, more than totalChannelLimit (\(options.totalChannelLimit))"
                )
            }
        }
        return options
    }

    /// One of `broadcast.channels`: `id` (required, a well-formed `apns-channel-id`: standard
    /// padded base64, 1 to 128 characters), `bundleId` (required, non-empty), `environment`
    /// (`sandbox`, the default, or `production`), `messageStoragePolicy` (0 or 1, default 1).
    private static func configuredChannel(_ reader: ConfigurationObject) throws(ConfigurationError)
        -> ConfiguredChannel
    {
        guard let idValue = reader["id"] else {
            throw ConfigurationError(
                field: reader.field("id"),
                message: "missing; a configured channel needs its ID (base64, e.g. \"dHN0LXNyY2gtY2hubA==\")")
        }
        let id = try idValue.text(at: reader.field("id"), expected: "a base64 channel ID")
        guard ConfiguredChannel.isChannelID(id) else {
            throw ConfigurationError(
                field: reader.field("id"),
                message: "expected standard padded base64 of 1 to 128 characters (as apns-channel-id takes), got "
                    + InputError.quoted(id))
        }
        guard let bundleValue = reader["bundleId"] else {
            throw ConfigurationError(
                field: reader.field("bundleId"), message: "missing; the app the channel belongs to")
        }
        let bundleID = try bundleValue.text(at: reader.field("bundleId"), expected: "a bundle ID")
        guard !bundleID.isEmpty else {
            throw ConfigurationError(field: reader.field("bundleId"), message: "expected a bundle ID, got \"\"")
        }
        let environment = try reader.choice("environment", APNsEnvironment.self) ?? .sandbox
        var policy = MessageStoragePolicy.mostRecentMessageStored
        if let number = try reader.integer("messageStoragePolicy", in: 0...1) {
            policy = MessageStoragePolicy(rawValue: number) ?? policy
        }
        return ConfiguredChannel(id: id, bundleID: bundleID, environment: environment, storagePolicy: policy)
    }

    /// Every configured virtual device's `channels` names one of `broadcast.channels` of its app
    /// (`topic`) in its environment, as `PUT /v1/devices/{token}` requires of a live channel; the
    /// error names the device's position, `devices[N].channels[M]`.
    private static func checkSubscriptions(
        _ devices: [(index: Int, device: VirtualDevice)], channels: [ConfiguredChannel]
    ) throws(ConfigurationError) {
        for (index, device) in devices {
            for (position, id) in device.channels.enumerated() {
                let field = "devices[\(index)].channels[\(position)]"
                guard let channel = channels.first(where: { $0.id == id }) else {
                    throw ConfigurationError(
                        field: field,
                        message: "no channel \(InputError.quoted(id)) in broadcast.channels (the channels made at "
                            + "start; a channel created later is subscribed to through PUT /v1/devices/{token})")
                }
                guard channel.bundleID == device.topic, channel.environment == device.environment else {
                    throw ConfigurationError(
                        field: field,
                        message: "channel \(InputError.quoted(id)) belongs to \(channel.bundleID) in "
                            + "\(channel.environment.rawValue), not to the device's \(device.topic) in "
                            + device.environment.rawValue)
                }
            }
        }
    }

    /// The virtual devices' settings (docs/device-model.md §5): each key optional, its default
    /// `DeviceModelOptions()`'s. Seconds are finite numbers, at least 0 (the budget's window more
    /// than 0); `backgroundBudget` an integer from 0 to 1000; `seed` an integer from 0 to 2^64-1;
    /// `historyLimit` an integer from 1 to 1,000,000.
    private static func deviceModel(_ reader: ConfigurationObject) throws(ConfigurationError) -> DeviceModelOptions {
        var options = DeviceModelOptions()
        func seconds(_ key: String, positive: Bool = false) throws(ConfigurationError) -> Double? {
            guard let value = reader[key] else { return nil }
            guard let number = value.number, number.isFinite, positive ? number > 0 : number >= 0 else {
                throw ConfigurationError(
                    field: reader.field(key),
                    message:
                        "expected a finite number of seconds, \(positive ? "more than 0" : "at least 0"), got \(value.rendered)"
                )
            }
            return number
        }
        options.maxStorageSeconds = try seconds("maxStorageSeconds") ?? options.maxStorageSeconds
        options.backgroundBudget = try reader.integer("backgroundBudget", in: 0...1000) ?? options.backgroundBudget
        options.backgroundBudgetWindowSeconds =
            try seconds("backgroundBudgetWindowSeconds", positive: true) ?? options.backgroundBudgetWindowSeconds
        options.overBudget = try reader.choice("overBudget", DeviceModelOptions.OverBudget.self) ?? options.overBudget
        options.removedApp = try reader.choice("removedApp", DeviceModelOptions.RemovedApp.self) ?? options.removedApp
        options.lowPowerBurstSeconds = try seconds("lowPowerBurstSeconds") ?? options.lowPowerBurstSeconds
        options.lowPowerBurstJitterSeconds =
            try seconds("lowPowerBurstJitterSeconds") ?? options.lowPowerBurstJitterSeconds
        options.historyLimit = try reader.integer("historyLimit", in: 1...1_000_000) ?? options.historyLimit
        options.lowPowerHoldLimit =
            try reader.integer("lowPowerHoldLimit", in: 1...100_000) ?? options.lowPowerHoldLimit
        if let seed = reader["seed"] {
            switch seed {
            case .int(let value) where value >= 0: options.seed = UInt64(value)
            case .uint(let value): options.seed = value
            default:
                throw ConfigurationError(
                    field: reader.field("seed"), message: "expected an integer from 0 to 2^64-1, got \(seed.rendered)")
            }
        }
        return options
    }

    /// Milliseconds since the epoch, from an integer or an ISO 8601 date-time string.
    private static func timestamp(_ value: JSONNode, at field: String) throws(ConfigurationError) -> Int64 {
        // The one rule of `ISO8601Timestamp`, as `PUT /v1/devices/{token}` applies it: from the
        // epoch to the end of 9999, whether written as milliseconds or as a date.
        switch value {
        case .int(let milliseconds) where ISO8601Timestamp(epochMilliseconds: milliseconds) != nil:
            return milliseconds
        case .string(let text):
            if let timestamp = ISO8601Timestamp(text) { return timestamp.epochMilliseconds }
        default:
            break
        }
        throw ConfigurationError(
            field: field, message: "expected \(ConfigurationLimits.timestampExpectation), got \(value.rendered)")
    }

}
