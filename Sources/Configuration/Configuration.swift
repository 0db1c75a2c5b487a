import APNsCore
import Broadcast
import Devices
import Faults
import Recording

/// Everything `mock-apns` needs to run: listeners, control API, limits, validation knobs,
/// known devices, provider-authentication settings and fault rules. `Configuration()` is the default setup;
/// `ConfigurationFile` reads one from JSON and `CommandLineParser` from arguments. Call
/// `validate()` before using a hand-built one.
public struct Configuration: Sendable, Equatable {
    /// The APNs listeners, at least one. Default: one listener named `default` on
    /// `127.0.0.1:2197`, sandbox, TLS with an ephemeral self-signed certificate.
    public var listeners: [ListenerConfiguration]
    /// The HTTP/1.1 control API address; `nil` runs no control server. Default `127.0.0.1:8197`.
    public var control: ControlConfiguration?
    /// How many delivery records the store keeps before dropping the oldest; at least 1.
    /// Default 100,000.
    public var maxRecords: Int
    /// How many connection events (GOAWAY, close, reset, SETTINGS, stalls, listener conditions,
    /// opened and closed) are kept before dropping the oldest; at least 1. Default 10,000.
    public var maxEvents: Int
    /// The most fault rules held at once (`POST /v1/faults` beyond it is a 400); at least 1.
    /// Default 10,000 (`FaultEngine.defaultMaxRules`).
    public var maxFaultRules: Int
    /// Seconds a control API connection may stay silent while its request is read or between
    /// requests before it is closed (not while a long poll is answered); 1 to 3600. Default 30.
    public var controlIdleTimeoutSeconds: Int
    /// Live streams (`GET /v1/deliveries/stream`, `/v1/events/stream`) open at once; one more is
    /// answered 503 (README "Live stream"). 0 to 10,000. Default 64.
    public var controlMaxStreams: Int = 64
    /// Bytes a live stream may have waiting unsent in its connection's buffer: it writes only
    /// below this, and is cut off when its output stays at it for 2 s with records waiting.
    /// 65,536 to 1,073,741,824. Default 4 MiB.
    public var controlStreamBufferBytes: Int = 4 << 20
    /// Request validation knobs where Apple is silent (token length, lints, registry mode).
    /// Default `ValidationOptions()`.
    public var validation: ValidationOptions
    /// Devices known at start (tokens lowercase hex, unique). Default none.
    public var devices: [DeviceRegistration]
    /// The virtual devices among `devices` (configured with device-model fields,
    /// docs/device-model.md §7), one per token that has a registration in `devices`. Default none.
    public var virtualDevices: [VirtualDevice] = []
    /// The virtual devices' settings: storage limit, background budget, low-power bursts and
    /// their seed (docs/device-model.md §5). Default `DeviceModelOptions()`.
    public var deviceModel = DeviceModelOptions()
    /// Channel management and broadcast sends: the Broadcast capability per bundle ID, the
    /// channel limit, priority 1, the ActivityKit lints, APNSwift's older shapes
    /// (docs/broadcast.md §3). Default `BroadcastOptions()`.
    public var broadcast = BroadcastOptions()
    /// The HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS` announced, 1 to 2^31-1. Default 1000
    /// (the value APNs announces today, docs/apns-behaviour.md §6).
    public var maxConcurrentStreams: Int
    /// Whether the stream limit is fixed or follows APNs's observed rise and fall. Default `.fixed`.
    public var streamProfile: StreamProfile
    /// Event-loop threads, 0 to 1024; 0 means one per usable CPU core (`UsableCores`) but one, at least one (a core is
    /// left for the sender under test). Default 0.
    public var workers: Int
    /// Log verbosity. Default `.info`.
    public var logLevel: LogLevel
    /// On a graceful stop, the longest wait for in-flight streams to be answered, in seconds,
    /// at least 0. Default 5.
    public var drainTimeoutSeconds: Double
    /// A JSON manifest of the provider-token signing keys (key ID, team ID, key file, scope,
    /// environments; see `fixtures/auth/keys.json`), loaded by the server at start. `nil`: no
    /// keys are configured. Default `nil`.
    public var keysManifestPath: String?
    /// Seconds added to the server's clock for provider-token time checks (expiry and tokens
    /// from the future), so a test can age a token without waiting; may be negative, must be
    /// finite. Default 0.
    public var clockOffsetSeconds: Double
    /// The fault rules in force from the start, in evaluation order: the file's `faults`, then
    /// the rules of its `scenarios` in their order, then those of `--fault-scenario`. Scenario
    /// windows and durations are counted from when the configuration was read. Rules without
    /// an `id` get one when added to the engine. Default none.
    public var faults: [FaultRule]
    /// Seconds without a completed request after which a connection is ended with
    /// `idleAction`; nil keeps idle connections open for good. Default nil.
    public var idleTimeoutSeconds: Double?
    /// How an idle connection ends. Default `.reset` (observed APNs behaviour).
    public var idleAction: IdleAction
    /// The legacy binary gateway and feedback listeners (docs/legacy-binary.md). Default none.
    public var binaryListeners: [BinaryListenerConfiguration] = []
    /// Where to write, once every listener and the control API listen, their bound ports and
    /// URLs as JSON (`ReadyFile`; README "Running in containers and from any language"),
    /// atomically (a temporary file renamed); nil writes none. Default nil.
    public var readyFilePath: String?
    /// The most isolated gateways held at once (`POST /v1/gateways` beyond it is a 429), 0 to
    /// 100,000; 0 makes none (docs/testing.md "Isolated gateways"). Default 1,000.
    public var maxGateways = 1_000
    /// The delivery journal (README "Journal"): every record of the default gateway appended to
    /// this file as newline-delimited JSON and read back at start, so a restart or crash keeps the
    /// history; nil keeps records in memory only. Isolated gateways are not journaled. Default nil.
    public var journalPath: String?
    /// When the journal's writes are made durable, and whether answers wait for it. Default `.batch`.
    public var journalSync: JournalSync = .batch
    /// The records an isolated gateway keeps when its request names no `maxRecords`, at least 1.
    /// Default 10,000 (smaller than the default gateway's, so that 200 gateways stay small).
    public var gatewayMaxRecords = 10_000

    /// Creates a configuration; every parameter defaults as documented on its property.
    public init(
        listeners: [ListenerConfiguration] = [ListenerConfiguration()],
        control: ControlConfiguration? = ControlConfiguration(),
        maxRecords: Int = 100_000,
        maxEvents: Int = 10_000,
        maxFaultRules: Int = FaultEngine.defaultMaxRules,
        controlIdleTimeoutSeconds: Int = 30,
        validation: ValidationOptions = ValidationOptions(),
        devices: [DeviceRegistration] = [],
        maxConcurrentStreams: Int = 1000,
        streamProfile: StreamProfile = .fixed,
        workers: Int = 0,
        logLevel: LogLevel = .info,
        drainTimeoutSeconds: Double = 5,
        keysManifestPath: String? = nil,
        clockOffsetSeconds: Double = 0,
        faults: [FaultRule] = [],
        idleTimeoutSeconds: Double? = nil,
        idleAction: IdleAction = .reset,
        readyFilePath: String? = nil
    ) {
        self.listeners = listeners
        self.control = control
        self.maxRecords = maxRecords
        self.maxEvents = maxEvents
        self.maxFaultRules = maxFaultRules
        self.controlIdleTimeoutSeconds = controlIdleTimeoutSeconds
        self.validation = validation
        self.devices = devices
        self.maxConcurrentStreams = maxConcurrentStreams
        self.streamProfile = streamProfile
        self.workers = workers
        self.logLevel = logLevel
        self.drainTimeoutSeconds = drainTimeoutSeconds
        self.keysManifestPath = keysManifestPath
        self.clockOffsetSeconds = clockOffsetSeconds
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.idleAction = idleAction
        self.faults = faults
        self.readyFilePath = readyFilePath
    }
}
