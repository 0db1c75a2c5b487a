import APNsAuth
import APNsCore
import Broadcast
import Configuration
import ControlAPI
import Devices
import Faults
import Foundation
import Gateway
import HTTP2Transport
import Recording
import Synchronization
import SystemSupport

/// One isolated gateway (docs/testing.md "Isolated gateways"): its own records, events, fault
/// rules, registry, virtual devices, clock and channels, the request handler its one listener's
/// connections are served by, and the control API served under its `controlBase`. No thread of
/// its own: its listener is on the server's accept loop, its connections on the server's workers.
public final class IsolatedGateway: @unchecked Sendable {
    /// `g1`, `g2`, …
    public let id: String
    /// Its listener's name.
    public let name: String
    /// The environment it serves.
    public let environment: APNsEnvironment
    /// How it checks provider authentication.
    public let auth: AuthModeSetting
    /// Its records.
    public let store: DeliveryStore
    /// Its connection events.
    public let events: ConnectionEventStore
    /// Its known devices.
    public let registry: DeviceRegistry
    /// Its virtual devices.
    public let devices: DeviceBook
    /// Its validation, recording and answering logic.
    public let gateway: Gateway
    /// Its fault rules.
    public var faults: FaultEngine { gateway.faults }
    /// Its provider-token clock.
    public let clock: ServerClock
    /// Seconds untouched before it is deleted; 0: never.
    public let ttlSeconds: Int
    /// Seconds since the Unix epoch.
    public let createdAt: Double
    /// The bound port and push URL; set once bound, before it is listed.
    public internal(set) var port = 0
    /// `https://host:port` (or `http://` when the server's first listener is cleartext).
    public internal(set) var url = ""
    /// The transport's id of its listener (`HTTP2Server.addListener`); set once bound.
    var listenerID = -1
    /// Its listener as bound (`POST /v1/send` under its `controlBase` pushes there); set once bound.
    var boundListener: MockAPNsServer.BoundListener? {
        get { bound.withLock { $0 } }
        set { bound.withLock { $0 = newValue } }
    }
    private let bound = Mutex<MockAPNsServer.BoundListener?>(nil)
    /// `POST /v1/send`'s sender under its `controlBase`: to its own listener once bound.
    private(set) var sender: ListenerPushSender!

    let handler: APNsRequestHandler
    let directory: TransportConnectionDirectory
    /// Its control API; `gateways` nil: no gateway under a gateway.
    private(set) var api: ControlAPI!

    /// Makes the gateway's parts; nothing is bound.
    init(
        id: String, name: String, environment: APNsEnvironment, auth: AuthModeSetting, ttlSeconds: Int,
        maxRecords: Int, configuration: Configuration, keys: KeyStore, status: ControlStatus
    ) {
        self.id = id
        self.name = name
        self.environment = environment
        self.auth = auth
        self.ttlSeconds = ttlSeconds
        createdAt = Date().timeIntervalSince1970
        store = DeliveryStore(capacity: maxRecords)
        events = ConnectionEventStore(capacity: min(configuration.maxEvents, maxRecords))
        registry = DeviceRegistry(devices: [])
        let broadcast = BroadcastService(options: configuration.broadcast)
        gateway = Gateway(
            store: store, registry: registry, options: configuration.validation,
            faults: FaultEngine(maxRules: configuration.maxFaultRules),
            pushToStartLint: PushToStart.lintCheck(broadcast.store))
        let clock = ServerClock(offsetSeconds: 0)
        self.clock = clock
        devices = DeviceBook(
            options: configuration.deviceModel, notificationCapacity: maxRecords, clock: { clock.now() })
        handler = APNsRequestHandler(
            gateway: gateway, broadcast: broadcast,
            listeners: [
                APNsRequestHandler.Listener(
                    name: name, environment: environment, authMode: AuthMode(rawValue: auth.rawValue) ?? .permissive)
            ], events: events, keys: keys, clock: clock, devices: devices, profile: configuration.streamProfile,
            logger: Logger(level: configuration.logLevel))
        directory = TransportConnectionDirectory(listeners: handler.listeners, actions: handler.actions)
        let directory = self.directory
        let environment = self.environment
        sender = ListenerPushSender(listing: { [weak self] in self?.boundListener.map { [$0] } ?? [] })
        let createdAt = self.createdAt
        let authMode = auth.rawValue
        api = ControlAPI(
            store: store, registry: registry, events: events, credentialClock: clock, faults: gateway.faults,
            connections: directory, listenerConditions: handler.conditions, devices: devices, feedback: nil,
            answerLatency: handler.answerLatency, channels: broadcast.store,
            sender: sender,
            tokenChecker: ListenerTokenChecker(
                targets: [.init(name: name, environment: environment)], keys: keys, clock: clock)
        ) { [weak self] in
            var live = status
            // Its own uptime, read at each call: since the gateway was made.
            live.uptimeMilliseconds = Int64((Date().timeIntervalSince1970 - createdAt) * 1000)
            live.connectionsOpen = directory.connections().count
            live.openFileLimit = OpenFileLimit.current
            live.openFiles = OpenFileLimit.openCount()
            // Its listener serves the server's first listener's TLS context (GatewayHost's template).
            live.listeners = [
                .init(
                    name: name, address: self?.url ?? "", environment: environment,
                    certificate: self?.boundListener?.tls == true ? status.listeners.first?.certificate : nil,
                    auth: authMode)
            ]
            return live
        }
    }

    /// Records and events changed since: a push, a connection opened or closed (the idle TTL's activity).
    var activity: UInt64 { store.generation &+ events.generation }

    /// The gateway as the control API lists it; `expiresAt` from `table`'s bookkeeping.
    func summary(expiresAt: Double?) -> GatewaySummary {
        GatewaySummary(
            id: id, name: name, port: port, url: url, environment: environment, auth: auth.rawValue,
            ttlSeconds: ttlSeconds, maxRecords: store.capacity, createdAt: createdAt, expiresAt: expiresAt)
    }
}
