import APNsAuth
import APNsCore
import Configuration
import ControlAPI
import Faults
import Foundation
import HTTP2Transport
import JSONInput
import JSONSupport
import Synchronization
import SystemSupport

/// The server's isolated gateways (docs/testing.md "Isolated gateways"): makes one (its parts,
/// then its listener on the running `HTTP2Server` with the default listener's TLS context and
/// SETTINGS), lists, finds and deletes them, and expires those untouched for their TTL. Behind
/// `/v1/gateways` (`GatewayDirectory`) and `MockAPNsServer.createGateway(_:)`.
final class GatewayHost: GatewayDirectory, @unchecked Sendable {
    /// How often untouched gateways are looked for, seconds.
    static let sweepInterval = 1.0
    private let configuration: Configuration
    private let table: Mutex<GatewayTable<IsolatedGateway>>
    /// Set once at start, before anything is made.
    var server: HTTP2Server?
    /// The listener a gateway copies host, TLS context and SETTINGS from; set at start.
    var template: HTTP2ListenerSpec?
    /// The provider-token keys loaded at start.
    var keys = KeyStore.empty
    /// The descriptors the process holds and its open-file limit, read before each gateway is made.
    var descriptors: @Sendable () -> (open: Int, limit: Int) = {
        (OpenFileLimit.openCount(), OpenFileLimit.current)
    }
    /// The facts every gateway's health starts from (version, workers).
    var status: @Sendable () -> ControlStatus = {
        ControlStatus(
            version: MockAPNsVersion.string, uptimeMilliseconds: 0, connectionsOpen: 0, listeners: [], workers: 0)
    }
    /// Called with a deleted gateway's API, to answer its pending waits (the control server's).
    var waitsEnded: @Sendable (ControlAPI) -> Void = { _ in }
    /// True when a live stream is open on a gateway's API (the control server's); asked by
    /// `sweep`, on the control loop. A gateway with a consumer attached does not expire.
    var streamsOpen: @Sendable (ControlAPI) -> Bool = { _ in false }

    init(configuration: Configuration) {
        self.configuration = configuration
        table = Mutex(GatewayTable(capacity: configuration.maxGateways))
    }

    var maxGateways: Int { configuration.maxGateways }

    /// The accepted `maxRecords` of a gateway: up to the default gateway's (or the per-gateway
    /// default, when that is larger).
    var maxRecordsRange: ClosedRange<Int> { 1...max(configuration.maxRecords, configuration.gatewayMaxRecords) }

    // MARK: GatewayDirectory

    func createGateway(_ body: GatewayBody) throws(ControlError) -> GatewaySummary {
        let options = GatewayOptions(
            name: body.name, port: body.port, environment: body.environment,
            auth: body.auth.flatMap(AuthModeSetting.init(rawValue:)), ttlSeconds: body.ttlSeconds,
            maxRecords: body.maxRecords)
        return try make(options) { gateway throws(ControlError) in
            guard let api = gateway.api else { return }
            for (index, device) in body.devices.enumerated() {
                guard case .object(let members) = device, case .string(let token)? = members["token"] else { continue }
                let bytes = (try? JSONEncoder().encode(device)).map(Array.init) ?? []
                let answer = api.handle(
                    ControlRequest(
                        method: "PUT", path: "/v1/devices/" + token,
                        body: bytes))
                if case .response(let response) = answer, response.status >= 300 {
                    throw .badRequest("devices[\(index)]: " + Self.errorText(response))
                }
            }
            if let faults = body.faults {
                let bytes = (try? JSONEncoder().encode(faults)).map(Array.init) ?? []
                let answer = api.handle(ControlRequest(method: "POST", path: "/v1/faults", body: bytes))
                if case .response(let response) = answer, response.status >= 300 {
                    throw .badRequest("faults: " + Self.errorText(response))
                }
            }
        }.summary(expiresAt: nil).withExpiry(of: self)
    }

    func gatewaySummaries() -> [GatewaySummary] {
        table.withLock { table in table.filled.compactMap { entry in entry.value?.summary(expiresAt: entry.expiresAt) }
        }
    }

    func gatewaySummary(id: String) -> GatewaySummary? {
        let now = Date().timeIntervalSince1970
        return table.withLock { table in
            table.touch(id, now: now)
            return table.entry(id).flatMap { entry in entry.value?.summary(expiresAt: entry.expiresAt) }
        }
    }

    func deleteGateway(id: String) -> Bool { remove(id: id) }

    func gatewayAPI(id: String) -> ControlAPI? {
        let now = Date().timeIntervalSince1970
        return table.withLock { table in
            table.touch(id, now: now)
            return table.entry(id)?.value?.api
        }
    }

    /// The expiry of `id` as the table has it now.
    func expiresAt(of id: String) -> Double? { table.withLock { $0.entry(id)?.expiresAt } }

    // MARK: Making and deleting

    /// Makes a gateway with `options`, runs `prepare` on it before its listener is bound (a
    /// throw undoes everything), binds it and lists it.
    /// - Throws: `ControlError` 400 (a setting out of bounds, `prepare`'s), 409 (the port is in
    ///   use, or a live gateway has the name asked for), 429 (the most gateways are held), 503
    ///   (the server is not running, or the open descriptors are within
    ///   `OpenFileLimit.reserve(under:)` of the limit).
    func make(
        _ options: GatewayOptions, prepare: (IsolatedGateway) throws(ControlError) -> Void = { _ in }
    ) throws(ControlError) -> IsolatedGateway {
        guard let server, let template else { throw ControlError(status: 503, message: "the server is not running") }
        let maxRecords = options.maxRecords ?? configuration.gatewayMaxRecords
        guard maxRecordsRange.contains(maxRecords) else {
            throw .badRequest(GatewayBody.maxRecordsRefusal(maxRecords, range: maxRecordsRange))
        }
        let ttl = options.ttlSeconds ?? GatewayOptions.defaultTTLSeconds
        guard GatewayBody.ttlRange.contains(ttl) else {
            throw .badRequest(
                "ttlSeconds: expected an integer from 0 to \(GatewayBody.ttlRange.upperBound), got \(ttl)")
        }
        guard (0...65_535).contains(options.port) else {
            throw .badRequest("port: expected an integer from 0 to 65535, got \(options.port)")
        }
        let (open, limit) = descriptors()
        if OpenFileLimit.leavesOnlyTheReserve(open: open, limit: limit) {
            throw ControlError(
                status: 503,
                message:
                    "too few file descriptors left for another gateway: \(open) open of the limit \(limit), "
                    + "\(OpenFileLimit.reserve(under: limit)) kept for connections; delete gateways or raise the "
                    + "open-file limit (ulimit -n)")
        }
        let now = Date().timeIntervalSince1970
        let reserved = table.withLock { table -> Result<String, ControlError> in
            if let name = options.name, let holder = table.holder(ofName: name) {
                return .failure(
                    .conflict(
                        "name: a live gateway is named \(InputError.quoted(name)) already (\(holder)); "
                            + "delete it, or choose another name"))
            }
            guard let id = table.reserve(ttlSeconds: ttl, now: now, name: options.name) else {
                return .failure(
                    ControlError(
                        status: 429,
                        message:
                            "too many gateways: \(configuration.maxGateways) held (--max-gateways); delete some first"))
            }
            return .success(id)
        }
        let id: String
        switch reserved {
        case .success(let reservedID): id = reservedID
        case .failure(let error): throw error
        }
        let first = configuration.listeners[0]
        let made = IsolatedGateway(
            id: id, name: options.name ?? id, environment: options.environment ?? first.environment,
            auth: options.auth ?? first.auth, ttlSeconds: ttl, maxRecords: maxRecords, configuration: configuration,
            keys: keys, status: status())
        do throws(ControlError) {
            let gateway = made
            for device in options.devices { gateway.registry.put(device) }
            do {
                try gateway.faults.add(contentsOf: options.faults)
            } catch {
                throw ControlError.badRequest("faults: \(error)")
            }
            try prepare(gateway)
            var spec = template
            spec.port = options.port
            let bound: (id: Int, address: SocketAddress)
            do {
                bound = try server.addListener(spec, handler: gateway.handler)
            } catch {
                throw ControlError(
                    status: options.port == 0 ? 503 : 409, message: "port \(options.port): \(error)")
            }
            gateway.listenerID = bound.id
            gateway.directory.listenerIDs = bound.id..<(bound.id + 1)
            gateway.directory.server = server
            gateway.port = bound.address.port
            let listener = MockAPNsServer.BoundListener(
                name: gateway.name, environment: gateway.environment, host: bound.address.hostText,
                port: bound.address.port, tls: spec.tls != nil)
            gateway.boundListener = listener
            gateway.url = listener.url
        } catch {
            table.withLock { _ = $0.remove(id) }
            throw error
        }
        table.withLock { $0.fill(id, with: made, now: Date().timeIntervalSince1970) }
        return made
    }

    /// Deletes `id`: unlisted at once, then its listener closed, its connections sent GOAWAY
    /// `{"reason":"Shutdown"}`, its pending waits answered; the connections get 1 s for streams in
    /// flight and are then closed on a background thread, so the caller is not held for the drain.
    /// Call from a thread other than the loops' (the control thread is fine).
    @discardableResult
    func remove(id: String) -> Bool {
        guard let gateway = table.withLock({ $0.remove(id) }) else { return false }
        server?.removeListener(
            id: gateway.listenerID, debugData: ReasonJSON.bytes(.shutdown), drainTimeout: 1, drainInBackground: true)
        if let api = gateway.api { waitsEnded(api) }
        return true
    }

    /// Deletes the gateways untouched for their TTL, after noting each one's activity (a push, a
    /// connection, an open live stream); the ids deleted. On the control loop.
    @discardableResult
    func sweep(now: Double = Date().timeIntervalSince1970) -> [String] {
        let streamsOpen = self.streamsOpen
        let due = table.withLock { table -> [String] in
            for entry in table.filled {
                guard let gateway = entry.value else { continue }
                table.observe(entry.id, activity: gateway.activity, now: now)
                if let api = gateway.api, streamsOpen(api) { table.touch(entry.id, now: now) }
            }
            return table.expired(now: now)
        }
        return due.filter { remove(id: $0) }
    }

    /// Deletes every gateway (the server stops).
    func removeAll() {
        for id in table.withLock({ $0.filled.map(\.id) }) { _ = table.withLock { $0.remove(id) } }
    }

    /// The `error` of an answer, or its body as text.
    private static func errorText(_ response: ControlResponse) -> String {
        let text = String(decoding: response.body, as: UTF8.self)
        if let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let message = object["error"] as? String
        {
            return message
        }
        return text
    }
}

extension GatewaySummary {
    /// With `expiresAt` as `host`'s table has it.
    fileprivate func withExpiry(of host: GatewayHost) -> GatewaySummary {
        var summary = self
        summary.expiresAt = host.expiresAt(of: id)
        return summary
    }
}
