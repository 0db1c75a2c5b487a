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
import JSONInput
import Recording
import Synchronization
import SystemSupport

/// A MockAPNs gateway: APNs listeners (HTTP/2 over TLS or cleartext), the delivery store, the
/// device registry and the JSON control API, in one object. Use it to embed MockAPNs in a Swift
/// test suite:
///
/// ```swift
/// var configuration = Configuration()
/// configuration.listeners[0].port = 0          // any free port
/// configuration.control = nil                  // no HTTP control API needed in-process
/// let server = MockAPNsServer(configuration: configuration)
/// try server.start()
/// defer { server.stop() }
/// // point the sender at https://127.0.0.1:\(server.listeners[0].port), trusting server.certificatePEM(listener: 0)
/// let accepted = server.deliveries(matching: DeliveryFilter(status: 200))
/// ```
public final class MockAPNsServer: @unchecked Sendable {
    /// A listener as bound.
    public struct BoundListener: Sendable, Equatable {
        /// The listener's configured name.
        public var name: String
        /// The environment it serves.
        public var environment: APNsEnvironment
        /// The bound host and port (the real port when 0 was configured).
        public var host: String
        public var port: Int
        /// True for TLS; false for cleartext HTTP/2 (`plaintext`).
        public var tls: Bool
        /// `https://host:port` or `http://host:port`.
        public var url: String {
            let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            return (tls ? "https://" : "http://") + bracketed + ":" + String(port)
        }
    }

    /// The configuration the server was made with.
    public let configuration: Configuration
    /// Every recorded request.
    public let store: DeliveryStore
    /// Connection events: GOAWAY, close, reset, SETTINGS, flow-control stalls, listener
    /// conditions met, connections opened and closed (`GET /v1/events`).
    public let events: ConnectionEventStore
    /// Known devices (configured, plus those put through the control API).
    public let registry: DeviceRegistry
    /// The virtual devices among the registered ones (configured, or PUT with device-model
    /// fields) and their pushes' lifecycles, on `clock` (docs/device-model.md §7).
    public let devices: DeviceBook
    /// The validation, recording and answering logic.
    public let gateway: Gateway
    /// Channel management and broadcast sends, with their channel store (docs/broadcast.md).
    public let broadcast: BroadcastService
    /// The fault rules in force; add or remove rules at any time (thread-safe).
    public var faults: FaultEngine { gateway.faults }
    /// The clock provider-token checks use; set `offsetSeconds` to age tokens without waiting.
    public let clock: ServerClock

    private let mainLoop = EventLoop()
    /// The control API's own loop, so a long query never delays accepting APNs connections.
    private let controlLoop = EventLoop()
    private var http2: HTTP2Server?
    /// The binary gateway and feedback listeners, when configured (docs/legacy-binary.md).
    private var byteStreams: ByteStreamServer?
    /// The handler of each of `configuration.binaryListeners`, in order.
    private var byteStreamHandlers: [ByteStreamHandler] = []
    /// The binary and feedback connections, for `/v1/connections` (docs/legacy-binary.md §8).
    private let legacyConnections = LegacyConnectionDirectory()
    /// The feedback service, when a `feedback` listener is configured.
    private(set) var feedback: FeedbackService?
    private var control: ControlServer?
    /// The delivery journal (`--journal`), once started.
    private var journal: DeliveryJournal?
    /// The isolated gateways (docs/testing.md "Isolated gateways").
    private let gatewayHost: GatewayHost
    private var tlsContexts: [TLSContext?] = []
    private let startedAt = Date()
    private let state = Mutex<Phase>(.idle)
    private enum Phase { case idle, starting, running, stopped }

    /// How each listener treats new connections (handshake delay, silence, refusal; docs/field-cases.md C15),
    /// by listener name; nil before `start()`.
    public private(set) var listenerConditions: ListenerConditionsInForce?
    /// The APNs listeners as bound; empty before `start()`.
    public private(set) var listeners: [BoundListener] = []
    /// The binary gateway and feedback listeners as bound (`tls` true), in configuration order;
    /// empty before `start()` or when none is configured.
    public private(set) var binaryListeners: [BoundListener] = []
    /// The control API's bound port, or nil when disabled or before `start()`.
    public private(set) var controlPort: Int?
    /// The control API's base URL, e.g. `http://127.0.0.1:8197`.
    public private(set) var controlURL: String?

    /// Makes a server; nothing is bound until `start()`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        gatewayHost = GatewayHost(configuration: configuration)
        store = DeliveryStore(capacity: configuration.maxRecords)
        events = ConnectionEventStore(capacity: configuration.maxEvents)
        registry = DeviceRegistry(devices: configuration.devices)
        let broadcast = BroadcastService(options: configuration.broadcast)
        self.broadcast = broadcast
        gateway = Gateway(
            store: store, registry: registry, options: configuration.validation,
            faults: FaultEngine(maxRules: configuration.maxFaultRules),
            pushToStartLint: PushToStart.lintCheck(broadcast.store))
        let clock = ServerClock(offsetSeconds: configuration.clockOffsetSeconds)
        self.clock = clock
        devices = DeviceBook(
            options: configuration.deviceModel, notificationCapacity: configuration.maxRecords, clock: { clock.now() })
        // Checked by the configuration's validation (unique tokens, one identity each).
        for device in configuration.virtualDevices {
            _ = try? devices.put(device)
            // An app not installed: its token is unregistered (docs/device-model.md §2.3).
            if let registration = registry.lookup(device.token) {
                let updated = registration.following(
                    device, previous: nil, removedApp: configuration.deviceModel.removedApp,
                    nowMilliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
                if updated != registration { registry.put(updated) }
            }
        }
    }

    /// Loads TLS material, binds every listener and the control API, and starts the threads.
    /// - Throws: `FaultRuleError` (a configured fault rule is invalid), `TLSError` (unreadable
    ///   certificate, key or client CA, mismatch),
    ///   `AuthMaterialError` (unreadable key manifest or key) or `TransportError` (address in
    ///   use, unresolvable host), or `ConfigurationError` (the control API bound beyond loopback
    ///   without a token or `insecureNoToken`, README "Security"). Nothing keeps running after a throw.
    public func start() throws {
        try state.withLock { phase in
            guard phase == .idle else { throw TransportError.alreadyStarted }
            phase = .starting
        }
        do {
            try startServing()
            state.withLock { $0 = .running }
        } catch {
            state.withLock { $0 = .stopped }
            journal?.close()
            throw error
        }
    }

    private func startServing() throws {
        if let problem = configuration.control?.exposureProblem {
            throw ConfigurationError(field: "control", message: problem)
        }
        let durability = try openJournal(logger: Logger(level: configuration.logLevel))
        let configuredKeys = try configuration.keysManifestPath.map { try KeyStore(manifestAt: $0) } ?? KeyStore.empty
        // The control API's test key (`POST /v1/provider-tokens`), only with a control API, and
        // only when no configured key has its ID.
        let testKey = try configuration.control.map { _ in try ProviderTestKey.generate() }
        let testKeys = testKey?.registered(in: configuredKeys)
        let keys = testKeys ?? configuredKeys
        try gateway.faults.add(contentsOf: configuration.faults)
        var specs: [HTTP2ListenerSpec] = []
        for listener in configuration.listeners {
            let tls: TLSContext?
            let alpn: ALPNMode = listener.alpn == .required ? .required : .optional
            if listener.plaintext {
                tls = nil
            } else if let certificate = listener.tlsCertificatePath, let key = listener.tlsKeyPath {
                tls = try TLSContext(
                    certificatePath: certificate, keyPath: key, alpn: alpn,
                    clientCAPaths: listener.clientCAPaths)
            } else {
                tls = try TLSContext.ephemeral(alpn: alpn, clientCAPaths: listener.clientCAPaths)
            }
            tlsContexts.append(tls)
            var settings = HTTP2Settings(maxConcurrentStreams: UInt32(configuration.maxConcurrentStreams))
            settings.idleTimeout = configuration.idleTimeoutSeconds
            if configuration.idleAction == .goaway {
                settings.idleGoAwayDebugData = ReasonJSON.bytes(.idleTimeout)
            }
            settings.idleBlackhole = configuration.idleAction == .blackhole
            specs.append(HTTP2ListenerSpec(host: listener.host, port: listener.port, tls: tls, settings: settings))
        }
        let handler = APNsRequestHandler(
            gateway: gateway, broadcast: broadcast,
            listeners: configuration.listeners.map {
                APNsRequestHandler.Listener(
                    name: $0.name, environment: $0.environment,
                    authMode: AuthMode(rawValue: $0.auth.rawValue) ?? .permissive)
            }, events: events, keys: keys, clock: clock, devices: devices, profile: configuration.streamProfile,
            logger: Logger(level: configuration.logLevel), answerDurability: durability)
        let startMilliseconds = Int64(Date().timeIntervalSince1970 * 1000)
        for listener in configuration.listeners {
            guard let update = listener.conditions else { continue }
            handler.conditions.set(
                update.applied(to: ListenerConditions(), nowMilliseconds: startMilliseconds), for: listener.name)
        }
        let http2 = HTTP2Server(
            listeners: specs, workerCount: configuration.workers, acceptLoop: mainLoop, handler: handler)
        try http2.start()
        listenerConditions = handler.conditions
        self.http2 = http2
        gatewayHost.server = http2
        gatewayHost.template = specs.first
        gatewayHost.keys = keys
        listeners = zip(configuration.listeners, http2.boundAddresses).map { listener, address in
            BoundListener(
                name: listener.name, environment: listener.environment, host: address.hostText,
                port: address.port, tls: !listener.plaintext)
        }
        do {
            try startByteStreams(tls: tlsContexts.first ?? nil, logger: Logger(level: configuration.logLevel))
        } catch {
            mainLoop.start()
            http2.shutdown(debugData: [], drainTimeout: 0)
            mainLoop.stop()
            mainLoop.waitUntilFinished()
            throw error
        }
        if let controlConfiguration = configuration.control {
            let status: @Sendable () -> ControlStatus = { [weak self] in
                self?.controlStatus()
                    ?? ControlStatus(
                        version: MockAPNsVersion.string, uptimeMilliseconds: 0, connectionsOpen: 0, listeners: [],
                        workers: 0)
            }
            gatewayHost.status = status
            let directory = TransportConnectionDirectory(listeners: handler.listeners, actions: handler.actions)
            directory.listenerIDs = 0..<configuration.listeners.count
            directory.server = http2
            let api = ControlAPI(
                store: store, registry: registry, events: events, credentialClock: clock, faults: gateway.faults,
                connections: CombinedConnectionDirectory(http2: directory, legacy: legacyConnections),
                listenerConditions: handler.conditions, devices: devices, feedback: feedback,
                answerLatency: handler.answerLatency, channels: broadcast.store, gateways: gatewayHost,
                sender: ListenerPushSender(listeners: listeners),
                tokenChecker: ListenerTokenChecker(
                    targets: configuration.listeners.map { .init(name: $0.name, environment: $0.environment) },
                    keys: keys, clock: clock),
                tokenMinter: testKeys == nil ? nil : testKey.map { TestKeyTokenMinter(key: $0) },
                status: status)
            let access = ControlAccessPolicy(
                allowedHosts: controlConfiguration.allowedHosts, allowedOrigins: controlConfiguration.allowedOrigins,
                token: controlConfiguration.token?.secret)
            let control = ControlServer(
                api: api, access: access, loop: controlLoop,
                idleTimeoutSeconds: configuration.controlIdleTimeoutSeconds,
                streamBudget: StreamBudget(maxUnsentBytes: configuration.controlStreamBufferBytes),
                maxStreams: configuration.controlMaxStreams)
            do {
                let address = try control.start(host: controlConfiguration.host, port: controlConfiguration.port)
                controlPort = address.port
                controlURL = "http://" + address.description
            } catch {
                // The accept loop must run for the listeners to be released.
                mainLoop.start()
                byteStreams?.shutdown(timeout: 0) { $0.close() }
                http2.shutdown(debugData: [], drainTimeout: 0)
                mainLoop.stop()
                mainLoop.waitUntilFinished()
                throw error
            }
            self.control = control
            let loop = controlLoop
            let served = control
            // Strong: the cycle (control, its API, this host) is broken by `stop()`.
            gatewayHost.waitsEnded = { api in loop.execute { served.finishWaits(of: api) } }
            gatewayHost.streamsOpen = { api in served.hasOpenStreams(of: api) }
            controlLoop.start()
            scheduleGatewaySweep()
        }
        mainLoop.start()
    }

    /// Binds the binary gateway and feedback listeners, with the first listener's TLS context
    /// (an ephemeral one when it is cleartext), on a loop of their own.
    private func startByteStreams(tls: TLSContext?, logger: Logger) throws {
        let configured = configuration.binaryListeners
        guard !configured.isEmpty else { return }
        let first = configuration.listeners[0]
        let context = try tls ?? TLSContext.ephemeral(clientCAPaths: first.clientCAPaths)
        let asks = !first.clientCAPaths.isEmpty
        var handlers: [ByteStreamHandler] = []
        for listener in configured {
            switch listener.kind {
            case .binary:
                let judge = BinaryNotificationJudge(
                    listener: listener, options: configuration.validation, registry: registry)
                handlers.append(
                    BinaryGatewayHandler(
                        listener: listener, asksForCertificates: asks, judge: judge, store: store, devices: devices,
                        events: events, faults: gateway.faults, logger: logger))
            case .feedback:
                let service = FeedbackService(
                    listener: listener, asksForCertificates: asks, registry: registry, events: events)
                feedback = service
                handlers.append(service)
            }
        }
        // Counted from 2^32, so that their ids never meet the HTTP/2 connections'.
        let ids = Atomic<UInt64>(1 << 32)
        let idle = configuration.idleTimeoutSeconds
        let events = self.events
        let server = ByteStreamServer(
            listeners: configured.map {
                ByteStreamListenerSpec(
                    host: $0.host, port: $0.port, tls: context, idleTimeoutSeconds: $0.idleTimeoutSeconds ?? idle,
                    maxConnections: $0.maxConnections)
            },
            handlers: handlers, nextConnectionID: { ids.add(1, ordering: .relaxed).oldValue },
            onRefused: { index, peer in
                // Past the listener's maxConnections (docs/legacy-binary.md §5): counted as an event.
                let listener = configured[index]
                events.append(
                    ConnectionEvent(
                        time: Date().timeIntervalSince1970, listener: listener.name,
                        environment: listener.environment, connectionID: nil, peer: peer, action: .refused,
                        origin: .listenerCondition))
                logger.log(
                    .info,
                    "\(listener.kind.rawValue) \(listener.name): connection from \(peer) closed at once: "
                        + "\(listener.maxConnections) open (maxConnections)")
            })
        try server.start()
        byteStreams = server
        byteStreamHandlers = handlers
        legacyConnections.server = server
        legacyConnections.handlers = handlers.compactMap { $0 as? LegacyConnectionHandler }
        binaryListeners = zip(configured, server.boundAddresses).map { listener, address in
            BoundListener(
                name: listener.name, environment: listener.environment, host: address.hostText, port: address.port,
                tls: true)
        }
    }

    /// Every second on the control loop: deletes the isolated gateways untouched for their TTL.
    private func scheduleGatewaySweep() {
        let loop = controlLoop
        let host = gatewayHost
        @Sendable func next() {
            _ = loop.schedule(after: GatewayHost.sweepInterval) {
                host.sweep()
                next()
            }
        }
        loop.execute { next() }
    }

    /// Makes an isolated gateway (docs/testing.md "Isolated gateways"): its own records, events,
    /// fault rules, registry, virtual devices, clock and channels, and one APNs listener on
    /// `options.port` (0: any free one) with the first listener's host, TLS certificate and
    /// SETTINGS, served by the same worker threads. Its control API is served under
    /// `/v1/gateways/<id>` too. Call after `start()`, from a thread other than the server's.
    /// - Returns: the gateway: `port`, `url`, its stores.
    /// - Throws: `ControlError` 400 (`maxRecords`, `ttlSeconds` or `port` out of bounds, a fault
    ///   rule refused), 409 (the port is in use), 429 (`Configuration.maxGateways` are held),
    ///   503 (not running).
    public func createGateway(_ options: GatewayOptions = GatewayOptions()) throws(ControlError) -> IsolatedGateway {
        guard state.withLock({ $0 == .running }) else {
            throw ControlError(status: 503, message: "the server is not running")
        }
        return try gatewayHost.make(options)
    }

    /// Deletes an isolated gateway: its listener closed, its connections sent GOAWAY NO_ERROR
    /// `{"reason":"Shutdown"}` and closed (1 s for streams in flight), its pending waits answered.
    /// Blocks until done; call from a thread other than the server's.
    /// - Returns: false when no gateway has that id (deleted, expired, never made).
    @discardableResult
    public func removeGateway(id: String) -> Bool { gatewayHost.remove(id: id) }

    /// The isolated gateways, in creation order.
    public var gateways: [GatewaySummary] { gatewayHost.gatewaySummaries() }

    private func controlStatus() -> ControlStatus {
        ControlStatus(
            version: MockAPNsVersion.string,
            uptimeMilliseconds: Int64(Date().timeIntervalSince(startedAt) * 1000),
            // The default gateway's own: not those of isolated gateways (docs/testing.md "Isolated gateways").
            connectionsOpen: http2?.configuredOpenConnections ?? 0,
            listeners: zip(listeners.enumerated(), configuration.listeners).map { pair, configured in
                .init(
                    name: pair.element.name, address: pair.element.url, environment: pair.element.environment,
                    certificate: pair.element.tls ? certificatePEM(listener: pair.offset) : nil,
                    auth: configured.auth.rawValue, clientCertificates: !configured.clientCAPaths.isEmpty)
            },
            workers: http2?.workerCount ?? 0, openFileLimit: OpenFileLimit.current,
            openFiles: OpenFileLimit.openCount())
    }

    /// Reads the journal back into the store and starts writing it (`--journal`, README
    /// "Journal"); nil without one. Returns what answers wait for with `--journal-sync always`.
    /// - Throws: `JournalError` (unreadable or unwritable file, a bad line before the last, another version).
    private func openJournal(logger: Logger) throws -> (any AnswerDurability)? {
        guard let path = configuration.journalPath else { return nil }
        let contents = try JournalReader.read(path: path, capacity: configuration.maxRecords)
        if let offset = contents.tornTailOffset {
            logger.log(
                .warning,
                "journal \(path): the last line, from byte offset \(offset), is torn or damaged (a crash in the "
                    + "middle of a write?): ignored, and cut off before new lines are appended")
        }
        let journal = try DeliveryJournal(
            path: path, sync: configuration.journalSync, contents: contents,
            report: { [logger] message in logger.log(.error, message) })
        store.attach(journal, restoring: contents)
        self.journal = journal
        let restored =
            contents.records.isEmpty
            ? "no records put back" : "\(contents.records.count) records put back (seq \(contents.firstSeq)...)"
        logger.log(
            .info,
            "journal \(path): \(restored), \(contents.lines) lines, last seq \(contents.lastSeq), sync "
                + configuration.journalSync.rawValue)
        return configuration.journalSync == .always ? JournalDurability(journal: journal) : nil
    }

    /// Stops gracefully: GOAWAY NO_ERROR with `{"reason":"Shutdown"}` on every connection,
    /// in-flight streams answered (up to `drainTimeoutSeconds`), then everything closed.
    /// Blocks until done; safe to call twice.
    public func stop() {
        let wasRunning = state.withLock { phase -> Bool in
            defer { if phase == .running { phase = .stopped } }
            return phase == .running
        }
        guard wasRunning else { return }
        // Binary connections get status 10 naming the last notification accepted (docs/legacy-binary.md §3).
        let handlers = byteStreamHandlers
        byteStreams?.shutdown(timeout: 1) { connection in
            if let gateway = handlers[connection.info.listenerIndex] as? BinaryGatewayHandler {
                gateway.shutDown(connection)
            } else {
                connection.close()
            }
        }
        http2?.shutdown(
            debugData: ReasonJSON.bytes(.shutdown),
            drainTimeout: configuration.drainTimeoutSeconds)
        gatewayHost.removeAll()
        gatewayHost.waitsEnded = { _ in }
        gatewayHost.streamsOpen = { _ in false }
        if let control = self.control {
            // Long polls get their answer first, and the HTTP server (with its connections) is
            // freed only once every answer is written out, or after the drain timeout (at least
            // a second) more.
            let budget = configuration.drainTimeoutSeconds
            let written = DispatchSemaphore(value: 0)
            controlLoop.execute {
                control.finishWaits(budget: budget)
                control.closeWhenWritten(within: max(budget, 1)) { written.signal() }
            }
            written.wait()
            controlLoop.stop()
            controlLoop.waitUntilFinished()
        }
        mainLoop.stop()
        mainLoop.waitUntilFinished()
        // After the last record: everything queued is written and synced.
        journal?.close()
    }

    /// Registers `device` as a virtual device (docs/device-model.md §7), with its registration
    /// (token, topic, environment) in `registry`, as `PUT /v1/devices/{token}` with device-model
    /// fields does; a device already registered under the token is updated.
    /// - Throws: `InputError` at `topic` or `environment` when a registered virtual device would
    ///   change them; nothing is changed then.
    /// An app not installed makes the token unregistered (410 `Unregistered`) since the moment
    /// `installed` went false, with `deviceModel.removedApp` `unregistered` (docs/device-model.md §2.3).
    public func register(_ device: VirtualDevice) throws(InputError) {
        let previous = devices.lifecycle(of: device.token).flatMap { lifecycle in
            registry.lookup(device.token).map { (device: lifecycle.device, registration: $0) }
        }
        try devices.put(device)
        let registration = DeviceRegistration(token: device.token, topic: device.topic, environment: device.environment)
        registry.put(
            registration.following(
                device, previous: previous, removedApp: devices.options.removedApp,
                nowMilliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded())))
    }

    /// What happened to the accepted push recorded as `seq` on its virtual device (its lifecycle,
    /// what the device did, interactions), caught up with `clock`; nil when it was not for one.
    public func notification(seq: UInt64) -> DeviceBook.Notification? { devices.notification(seq) }

    /// The stored records matching `filter`, oldest first.
    /// A `channelID` selects the record of the create that made that channel too
    /// (`withChannelCreate(_:)`, docs/broadcast.md §4).
    public func deliveries(matching filter: DeliveryFilter = DeliveryFilter()) -> [DeliveryRecord] {
        store.query(withChannelCreate(filter), limit: nil).deliveries
    }

    /// `filter` with `channelCreateSeq` set to the seq of the recorded create that made its
    /// `channelID` (`ChannelStore.createSeq(of:)`), so the create's record matches too; unchanged
    /// without a `channelID` or when one is set already.
    public func withChannelCreate(_ filter: DeliveryFilter) -> DeliveryFilter {
        guard let id = filter.channelID, filter.channelCreateSeq == nil else { return filter }
        var resolved = filter
        resolved.channelCreateSeq = broadcast.store.createSeq(of: id)
        return resolved
    }

    /// The stored connection events matching `filter`, oldest first.
    public func connectionEvents(matching filter: ConnectionEventFilter = ConnectionEventFilter()) -> [ConnectionEvent]
    {
        events.query(filter, limit: nil).events
    }

    /// The PEM certificate a listener presents (for a client to trust an ephemeral one), or
    /// nil for a cleartext listener or before `start()`.
    public func certificatePEM(listener index: Int) -> String? {
        guard index < tlsContexts.count else { return nil }
        return tlsContexts[index]?.certificatePEM
    }

    /// Connections open now, across every listener, isolated gateways' included.
    public var openConnections: Int { http2?.openConnections ?? 0 }
}
