import APNsCore
import Broadcast
import Devices
import Faults
import Foundation
import JSONInput
import JSONSupport
import Recording

/// The HTTP/1.1 control API as a pure function: a `ControlRequest` in, a `ControlResult` out.
/// No I/O: the HTTP adapter (libevent `evhttp`) parses the request, calls `handle`, writes the
/// answer with `content-type: application/json`, and drives long polls with `waitResult`.
///
/// Endpoints (`routes` lists them with their query parameters; `docs/control-api.openapi.json`
/// documents them and a test keeps the two in step):
///
/// | method | path | answer |
/// |---|---|---|
/// | GET | /v1/health | `{"status":"ok","version","uptimeMs","connectionsOpen","listeners":[{"name","address","environment","certificate"}],"workers","openFileLimit","openFiles"}` (`certificate`: the served PEM, null for plaintext) |
/// | GET | /v1/stats | `{"requests","byStatus":{"200":N},"byReason":{…},"connectionsOpen","records","evicted","lastSeq","capacity","events":{…}}` |
/// | GET | /metrics | the counters in the Prometheus text format, or OpenMetrics on `accept` (README "Metrics") |
/// | GET | /v1/deliveries | filters + `limit` → `{"deliveries":[…],"more","evicted","lastSeq"}`, oldest first |
/// | DELETE | /v1/deliveries | `{"cleared":N,"lastSeq":N}`; virtual devices' notifications go with the records |
/// | GET | /v1/deliveries/wait | filters + `count` (default 1) + `timeoutMs` (default 5000, max 300000) → `{"complete","count","matched","deliveries","evicted","lastSeq"}` |
/// | GET | /v1/deliveries/{seq} | one record; 404 when absent, evicted or cleared |
/// | GET | /v1/deliveries/{seq}/apns | the record's Simulator `.apns` file; 400 seq not from 1, 404 absent, 409 not answered 200 or not an alert or background push with a JSON object payload |
/// | GET | /v1/deliveries/{seq}/preview | `device`, `appState` → `{"seq","device","appState","reaction"}`: what that virtual device (or a default one) would do with the accepted push, nothing delivered |
/// | GET | /v1/delivery-log/{id} | the notifications whose apns-unique-id or apns-id is `id`, each with its state history |
/// | GET | /v1/delivery-metrics | `from`, `to` → the console's counts of virtual devices' notifications, total, by push type and priority |
/// | GET, DELETE | /v1/devices | `limit` (default 1000), `after` (a token) → `{"devices":[…],"count","total","more"}` in token order / `{"removed":N}` |
/// | GET, PUT, DELETE | /v1/devices/{token} | the registration; PUT answers 201 on create, 200 on replace; a body with device-model fields registers a virtual device, whose GET adds its state |
/// | PATCH | /v1/devices/{token} | a virtual device's connectivity, appState, settings, capabilities, categories, foregroundPresentation, installed; 404 unknown, 409 not virtual |
/// | POST | /v1/devices/{token}/interactions | `{"notification": seq, "action": "tap" \| "dismiss" \| identifier, "text"}` → the outcome |
/// | GET, PUT | /v1/clock | `{"offsetSeconds","now"}`: the provider-token clock offset; PUT body `{"offsetSeconds": N}` |
/// | GET, DELETE | /v1/faults | `{"faults":[rule + "matched","fired","spent"…]}` in evaluation order / `{"removed":N}` |
/// | POST | /v1/faults | body: a rule, an array of rules, or `{"scenario","parameters"}` → 201 `{"faults":[the rules as stored]}` |
/// | GET, DELETE | /v1/faults/{id} | the rule with its counters / `{"deleted":id}`; 404 when unknown |
/// | GET | /v1/fault-scenarios | `{"scenarios":[{"name","summary","parameters":[{"name","description"}],"example"}]}`: the presets `POST /v1/faults` takes |
/// | GET | /v1/connections | `{"connections":[…]}`, the open APNs connections by id |
/// | POST | /v1/connections/{id}/goaway, …/close, …/reset | `{"id","action"}`; goaway body `{"errorCode","reason","closeAfterMs"}`, all optional; 404 when not open |
/// | POST | /v1/connections/{id}/blackhole | `{"id","action"}`: nothing is answered from now on, the socket stays open; 409 before the HTTP/2 session or when already blackholed |
/// | POST | /v1/connections/{id}/drain | `{"id","action"}`: GOAWAY NO_ERROR, the streams in flight answered, FIN after the last (body `{"reason","maxMs"}`, the cap, default 5000); 409 once it went away |
/// | POST | /v1/connections/goaway, …/close, …/reset, …/blackhole, …/drain (`?listener=NAME`) | `{"action","ids":[…]}`: every open connection (of that listener) at once; the goaway body as above |
/// | GET | /v1/events | event filters + `limit` → `{"events":[…],"more","evicted","lastSeq"}`, oldest first |
/// | DELETE | /v1/events | `{"cleared":N,"lastSeq":N}` |
/// | GET | /v1/feedback | `{"feedback":[{"token","timestamp","environment"}],"count"}`: what the feedback service's next read would send |
/// | GET | /v1/deliveries/stream | filters (no lifecycle states) + `format` (`sse`, `ndjson`; or `accept: application/x-ndjson`), `after` or `Last-Event-ID` to resume → a live stream (README "Live stream") |
/// | GET | /v1/events/stream | event filters + `format`, as the deliveries stream |
/// | POST | /v1/send | `{"token","headers","payload","listener"}` → the listener's answer `{"status","apnsId","reason","seq",…}` (sent over HTTP/2 off the control loop) |
/// | POST | /v1/validate/provider-token | `{"token","topic","listener"}` → `{"accepted","reason","verdict","keyId","teamId","issuedAt","ageSeconds",…}` as the listener would decide |
/// | POST | /v1/provider-tokens | `{"ageSeconds"}` (optional) → `{"token","authorization","header","claims","keyId","teamId","issuedAt","expiresAt"}` signed with the server's test key |
/// | GET | /console, /console/{asset} | the web console's page and its files (docs/console.md), not JSON |
/// | GET | /v1/events/wait | event filters + `count` + `timeoutMs`, as the deliveries wait → `{"complete","count","matched","events","evicted","lastSeq"}` |
/// | POST, GET | /v1/gateways | body `GatewayBody` → 201 the gateway / `{"gateways":[…],"count","max"}` (docs/testing.md "Isolated gateways") |
/// | GET, DELETE | /v1/gateways/{id} | the gateway / `{"deleted": id}`; 404 when unknown; every other path under it is the gateway's own API |
///
/// Errors are 4xx with `{"error":"…"}` naming the parameter, field or path at fault: unknown
/// path 404; wrong method 405 with an `allow` header; unknown or repeated query parameters,
/// bad values and malformed bodies 400. No input makes it crash.
public final class ControlAPI: Sendable {
    /// The records served by the `/v1/deliveries` endpoints.
    public let store: DeliveryStore
    /// The connection events served by the `/v1/events` endpoints.
    public let events: ConnectionEventStore
    /// The devices served by the `/v1/devices` endpoints.
    public let registry: DeviceRegistry
    /// The virtual devices among them and their pushes' lifecycles (docs/device-model.md §7).
    public let devices: DeviceBook
    /// The live server facts, read at each `/v1/health`, `/v1/stats` and `/metrics`.
    let status: @Sendable () -> ControlStatus
    /// The clock of provider-token checks, whose offset `/v1/clock` reads and sets.
    let credentialClock: ServerClock
    /// The listeners' connection conditions (`/v1/listeners`); nil lists none.
    let listenerConditions: ListenerConditionsInForce?
    /// The broadcast channels served by `/v1/channels` (docs/broadcast.md §4).
    public let channels: ChannelStore
    /// The fault rules served by the `/v1/faults` endpoints; the gateway evaluates the same engine.
    public let faults: FaultEngine
    /// The live connections behind `/v1/connections`; nil lists none and finds none.
    let connections: (any ConnectionDirectory)?
    /// The feedback service behind `/v1/feedback`; nil lists nothing.
    let feedback: (any FeedbackSource)?
    /// The answer latencies `GET /metrics` reports; nil reports none.
    let answerLatency: AnswerLatencyHistogram?
    /// The isolated gateways behind `/v1/gateways`: the server's own API has them, a gateway's
    /// API (and one without a server) has none and answers those paths 404.
    public let gateways: (any GatewayDirectory)?
    /// Sends `POST /v1/send`'s pushes to the server's own listeners; nil answers 503.
    let sender: (any PushSender)?
    /// Checks `POST /v1/validate/provider-token`'s tokens as a listener would; nil answers 503.
    let tokenChecker: (any ProviderTokenChecker)?
    /// Signs `POST /v1/provider-tokens`' tokens with the server's test key; nil answers 503.
    let tokenMinter: (any ProviderTokenMinter)?
    private let clock: @Sendable () -> Double

    /// The default `timeoutMs` of `GET /v1/deliveries/wait` and `/v1/events/wait`, in milliseconds.
    public static let defaultWaitMilliseconds = 5_000
    /// The largest accepted `timeoutMs`, in milliseconds (5 minutes).
    public static let maxWaitMilliseconds = 300_000

    /// Creates the API over `store` and `registry`.
    /// - Parameters:
    ///   - clock: the current time in seconds since the Unix epoch; used to stamp a device
    ///     marked `expired` without `unregisteredAt`.
    ///   - status: called on each `/v1/health` and `/v1/stats` request for the live server facts
    ///     (connections open, listeners, version, uptime); it runs on the control thread.
    ///   - credentialClock: the clock of provider-token checks, served by `/v1/clock`.
    ///   - faults: the fault rules served by `/v1/faults`; `clock` also starts the windows of
    ///     scenarios added there.
    ///   - connections: the live connections served by `/v1/connections`; nil (an API without a
    ///     transport, as in tests) lists none and answers 404 to every command.
    ///   - events: the connection events served by `/v1/events`.
    ///   - answerLatency: the gateway's answer latencies, for `GET /metrics`; nil leaves the
    ///     histogram out.
    ///   - devices: the virtual devices; nil makes an empty book on `credentialClock`, holding as
    ///     many notifications as `store` holds records.
    ///   - feedback: the feedback service served by `/v1/feedback`; nil lists nothing.
    ///   - channels: the broadcast channels served by `/v1/channels` (the listeners' store);
    ///     nil makes an empty one.
    ///   - gateways: the isolated gateways served by `/v1/gateways`; nil answers those paths 404.
    ///   - sender: sends `POST /v1/send`'s pushes to the server's listeners (the web console's
    ///     compose form); nil answers 503.
    ///   - tokenChecker: checks `POST /v1/validate/provider-token`'s tokens as the listeners do;
    ///     nil answers 503.
    ///   - tokenMinter: signs `POST /v1/provider-tokens`' tokens with the server's test key
    ///     (`ProviderTestKey`); nil answers 503.
    public init(
        store: DeliveryStore, registry: DeviceRegistry, events: ConnectionEventStore = ConnectionEventStore(),
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        credentialClock: ServerClock = ServerClock(),
        faults: FaultEngine = FaultEngine(),
        connections: (any ConnectionDirectory)? = nil,
        listenerConditions: ListenerConditionsInForce? = nil,
        devices: DeviceBook? = nil,
        feedback: (any FeedbackSource)? = nil,
        answerLatency: AnswerLatencyHistogram? = nil,
        channels: ChannelStore? = nil,
        gateways: (any GatewayDirectory)? = nil,
        sender: (any PushSender)? = nil,
        tokenChecker: (any ProviderTokenChecker)? = nil,
        tokenMinter: (any ProviderTokenMinter)? = nil,
        status: @escaping @Sendable () -> ControlStatus
    ) {
        self.gateways = gateways
        self.sender = sender
        self.tokenChecker = tokenChecker
        self.tokenMinter = tokenMinter
        self.feedback = feedback
        self.channels = channels ?? ChannelStore()
        self.devices =
            devices ?? DeviceBook(notificationCapacity: store.capacity, clock: { credentialClock.now() })
        self.listenerConditions = listenerConditions
        self.answerLatency = answerLatency
        self.credentialClock = credentialClock
        self.faults = faults
        self.connections = connections
        self.store = store
        self.events = events
        self.registry = registry
        self.clock = clock
        self.status = status
    }

    /// Every endpoint served, with the query parameters it accepts; the router dispatches from
    /// this list, so it is the truth the OpenAPI document is tested against.
    public static let routes: [ControlRoute] = {
        let filters = DeliveryFilter.queryParameterNames + LifecycleFilter.queryParameterNames
        let eventFilters = ConnectionEventFilter.queryParameterNames
        return [
            ControlRoute(method: "GET", path: "/v1/health", queryParameters: [], endpoint: .health),
            ControlRoute(method: "GET", path: "/v1/stats", queryParameters: [], endpoint: .stats),
            ControlRoute(method: "GET", path: "/metrics", queryParameters: [], endpoint: .metrics),
            ControlRoute(
                method: "GET", path: "/v1/deliveries", queryParameters: filters + ["limit"],
                endpoint: .listDeliveries),
            ControlRoute(
                method: "DELETE", path: "/v1/deliveries", queryParameters: [],
                endpoint: .clearDeliveries),
            ControlRoute(
                method: "GET", path: "/v1/deliveries/wait",
                queryParameters: filters + ["count", "timeoutMs"], endpoint: .waitDeliveries),
            ControlRoute(
                method: "GET", path: "/v1/deliveries/stream",
                queryParameters: DeliveryFilter.queryParameterNames + ["format"], endpoint: .streamDeliveries),
            ControlRoute(
                method: "GET", path: "/v1/deliveries/{seq}", queryParameters: [],
                endpoint: .getDelivery),
            ControlRoute(
                method: "GET", path: "/v1/deliveries/{seq}/apns", queryParameters: [],
                endpoint: .getDeliveryAPNsFile),
            ControlRoute(
                method: "GET", path: "/v1/deliveries/{seq}/preview", queryParameters: ["device", "appState"],
                endpoint: .getDevicePreview),
            ControlRoute(
                method: "GET", path: "/v1/delivery-log/{id}", queryParameters: [], endpoint: .getDeliveryLog),
            ControlRoute(
                method: "GET", path: "/v1/delivery-metrics", queryParameters: ["from", "to"],
                endpoint: .getDeliveryMetrics),
            ControlRoute(
                method: "GET", path: "/v1/devices", queryParameters: ["limit", "after"], endpoint: .listDevices),
            ControlRoute(method: "DELETE", path: "/v1/devices", queryParameters: [], endpoint: .clearDevices),
            ControlRoute(method: "GET", path: "/v1/devices/{token}", queryParameters: [], endpoint: .getDevice),
            ControlRoute(method: "PUT", path: "/v1/devices/{token}", queryParameters: [], endpoint: .putDevice),
            ControlRoute(
                method: "DELETE", path: "/v1/devices/{token}", queryParameters: [],
                endpoint: .deleteDevice),
            ControlRoute(
                method: "PATCH", path: "/v1/devices/{token}", queryParameters: [], endpoint: .patchDevice),
            ControlRoute(
                method: "POST", path: "/v1/devices/{token}/interactions", queryParameters: [],
                endpoint: .interactDevice),
            ControlRoute(method: "GET", path: "/v1/listeners", queryParameters: [], endpoint: .listListeners),
            ControlRoute(method: "GET", path: "/v1/feedback", queryParameters: [], endpoint: .listFeedback),
            ControlRoute(
                method: "PUT", path: "/v1/listeners/{name}/conditions", queryParameters: [],
                endpoint: .putListenerConditions),
            ControlRoute(method: "GET", path: "/v1/clock", queryParameters: [], endpoint: .getClock),
            ControlRoute(method: "PUT", path: "/v1/clock", queryParameters: [], endpoint: .putClock),
            ControlRoute(method: "GET", path: "/v1/faults", queryParameters: [], endpoint: .listFaults),
            ControlRoute(method: "POST", path: "/v1/faults", queryParameters: [], endpoint: .addFaults),
            ControlRoute(method: "DELETE", path: "/v1/faults", queryParameters: [], endpoint: .clearFaults),
            ControlRoute(method: "GET", path: "/v1/faults/{id}", queryParameters: [], endpoint: .getFault),
            ControlRoute(method: "DELETE", path: "/v1/faults/{id}", queryParameters: [], endpoint: .deleteFault),
            ControlRoute(
                method: "GET", path: "/v1/fault-scenarios", queryParameters: [], endpoint: .listFaultScenarios),
            ControlRoute(
                method: "GET", path: "/v1/channels", queryParameters: ["bundleId", "environment", "limit", "after"],
                endpoint: .listChannels),
            ControlRoute(method: "POST", path: "/v1/channels", queryParameters: [], endpoint: .addChannel),
            ControlRoute(method: "DELETE", path: "/v1/channels/{id}", queryParameters: [], endpoint: .deleteChannel),
            ControlRoute(method: "GET", path: "/v1/connections", queryParameters: [], endpoint: .listConnections),
            ControlRoute(
                method: "POST", path: "/v1/connections/{id}/goaway", queryParameters: [],
                endpoint: .goawayConnection),
            ControlRoute(
                method: "POST", path: "/v1/connections/{id}/close", queryParameters: [],
                endpoint: .closeConnection),
            ControlRoute(
                method: "POST", path: "/v1/connections/{id}/reset", queryParameters: [],
                endpoint: .resetConnection),
            ControlRoute(
                method: "POST", path: "/v1/connections/{id}/blackhole", queryParameters: [],
                endpoint: .blackholeConnection),
            ControlRoute(
                method: "POST", path: "/v1/connections/blackhole", queryParameters: ["listener"],
                endpoint: .blackholeAllConnections),
            ControlRoute(
                method: "POST", path: "/v1/connections/{id}/drain", queryParameters: [],
                endpoint: .drainConnection),
            ControlRoute(
                method: "POST", path: "/v1/connections/drain", queryParameters: ["listener"],
                endpoint: .drainAllConnections),
            ControlRoute(
                method: "POST", path: "/v1/connections/goaway", queryParameters: ["listener"],
                endpoint: .goawayAllConnections),
            ControlRoute(
                method: "POST", path: "/v1/connections/close", queryParameters: ["listener"],
                endpoint: .closeAllConnections),
            ControlRoute(
                method: "POST", path: "/v1/connections/reset", queryParameters: ["listener"],
                endpoint: .resetAllConnections),
            ControlRoute(
                method: "GET", path: "/v1/events", queryParameters: eventFilters + ["limit"], endpoint: .listEvents),
            ControlRoute(method: "DELETE", path: "/v1/events", queryParameters: [], endpoint: .clearEvents),
            ControlRoute(
                method: "GET", path: "/v1/events/wait", queryParameters: eventFilters + ["count", "timeoutMs"],
                endpoint: .waitEvents),
            ControlRoute(
                method: "GET", path: "/v1/events/stream", queryParameters: eventFilters + ["format"],
                endpoint: .streamEvents),
            ControlRoute(method: "POST", path: "/v1/verify", queryParameters: [], endpoint: .verify),
            ControlRoute(method: "POST", path: "/v1/send", queryParameters: [], endpoint: .send),
            ControlRoute(
                method: "POST", path: "/v1/validate/provider-token", queryParameters: [],
                endpoint: .validateProviderToken),
            ControlRoute(
                method: "POST", path: "/v1/provider-tokens", queryParameters: [], endpoint: .mintProviderToken),
            ControlRoute(method: "GET", path: "/console", queryParameters: [], endpoint: .consolePage),
            ControlRoute(method: "GET", path: "/console/{asset}", queryParameters: [], endpoint: .consoleAsset),
            ControlRoute(
                method: "GET", path: "/v1/verify/teardown", queryParameters: ["after"], endpoint: .verifyTeardown),
            ControlRoute(method: "POST", path: "/v1/gateways", queryParameters: [], endpoint: .createGateway),
            ControlRoute(method: "GET", path: "/v1/gateways", queryParameters: [], endpoint: .listGateways),
            ControlRoute(method: "GET", path: "/v1/gateways/{id}", queryParameters: [], endpoint: .getGateway),
            ControlRoute(method: "DELETE", path: "/v1/gateways/{id}", queryParameters: [], endpoint: .deleteGateway),
        ]
    }()

    /// Serves `request`: an answer now, or `.wait` for a long poll that is not yet complete.
    public func handle(_ request: ControlRequest) -> ControlResult {
        do {
            return try dispatch(request)
        } catch {
            return .response(error.response)
        }
    }

    private func dispatch(_ request: ControlRequest) throws(ControlError) -> ControlResult {
        let (route, pathValue) = try Self.resolve(method: request.method, path: request.path)
        let query = try Self.queryDictionary(request.query, for: route)
        switch route.endpoint {
        case .health: return .response(health())
        case .stats: return .response(statsResponse())
        case .metrics: return .response(metrics(accept: request.accept))
        case .listDeliveries: return .response(try listDeliveries(query))
        case .clearDeliveries: return .response(clearDeliveries())
        case .waitDeliveries: return try startWait(query)
        case .getDelivery: return .response(try delivery(seqText: pathValue))
        case .getDeliveryAPNsFile: return .response(try simulatorFile(seqText: pathValue))
        case .getDevicePreview: return .response(try devicePreview(seqText: pathValue, query))
        case .getDeliveryLog: return .response(try deliveryLog(id: pathValue))
        case .getDeliveryMetrics: return .response(try deliveryMetrics(query))
        case .listDevices: return .response(try listDevices(query))
        case .clearDevices: return .response(clearDevices())
        case .getDevice: return .response(try device(tokenText: pathValue))
        case .putDevice: return .response(try putDevice(tokenText: pathValue, body: request.body))
        case .deleteDevice: return .response(try deleteDevice(tokenText: pathValue))
        case .patchDevice: return .response(try patchDevice(tokenText: pathValue, body: request.body))
        case .interactDevice: return .response(try interact(tokenText: pathValue, body: request.body))
        case .listListeners: return .response(listenersResponse())
        case .listFeedback: return .response(feedbackResponse())
        case .putListenerConditions: return .response(try putListenerConditions(name: pathValue, body: request.body))
        case .getClock: return .response(clockResponse())
        case .putClock: return .response(try putClock(body: request.body))
        case .listFaults: return .response(listFaults())
        case .addFaults: return .response(try addFaults(body: request.body))
        case .clearFaults: return .response(clearFaults())
        case .getFault: return .response(try fault(id: pathValue))
        case .deleteFault: return .response(try deleteFault(id: pathValue))
        case .listFaultScenarios: return .response(listFaultScenarios())
        case .listChannels: return .response(try listChannels(query))
        case .addChannel: return .response(try addChannel(body: request.body))
        case .deleteChannel: return .response(try deleteChannel(id: pathValue))
        case .listConnections: return .response(listConnections())
        case .goawayConnection: return .response(try goaway(idText: pathValue, body: request.body))
        case .closeConnection: return .response(try perform(.close, idText: pathValue, body: request.body))
        case .resetConnection: return .response(try perform(.reset, idText: pathValue, body: request.body))
        case .goawayAllConnections:
            return .response(try performOnEvery(try Self.goawayCommand(body: request.body), query: query))
        case .closeAllConnections: return .response(try performOnEvery(.close, query: query, body: request.body))
        case .resetAllConnections: return .response(try performOnEvery(.reset, query: query, body: request.body))
        case .blackholeConnection: return .response(try perform(.blackhole, idText: pathValue, body: request.body))
        case .blackholeAllConnections:
            return .response(try performOnEvery(.blackhole, query: query, body: request.body))
        case .drainConnection:
            return .response(try perform(try DrainBody.read(request.body).command, idText: pathValue, body: []))
        case .drainAllConnections:
            return .response(try performOnEvery(try DrainBody.read(request.body).command, query: query))
        case .listEvents: return .response(try listEvents(query))
        case .clearEvents: return .response(clearEvents())
        case .waitEvents: return try startEventWait(query)
        case .streamDeliveries: return try startDeliveryStream(request, query)
        case .streamEvents: return try startEventStream(request, query)
        case .verify: return try startVerification(body: request.body)
        case .verifyTeardown: return .response(try teardownCheck(query))
        case .createGateway: return .response(try createGateway(body: request.body))
        case .listGateways: return .response(try listGateways())
        case .getGateway: return .response(try gateway(id: pathValue))
        case .deleteGateway: return .response(try deleteGateway(id: pathValue))
        case .send: return try startSend(body: request.body)
        case .validateProviderToken: return .response(try validateProviderToken(body: request.body))
        case .mintProviderToken: return .response(try mintProviderToken(body: request.body))
        case .consolePage: return .response(consolePage())
        case .consoleAsset: return .response(try consoleAsset(name: pathValue))
        }
    }

    // MARK: Routing

    /// The route for `method` and `path`, plus the value of its path parameter (empty when none).
    /// A literal segment beats a parameter (`/v1/deliveries/wait` is not seq "wait").
    static func resolve(method: String, path: String) throws(ControlError) -> (ControlRoute, String) {
        let segments = path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        var best: (route: ControlRoute, literals: Int, value: String)?
        for route in routes {
            let template = route.segments
            guard template.count == segments.count else { continue }
            var literals = 0, value = "", matched = true
            for (want, have) in zip(template, segments) {
                if let want {
                    guard want == have else {
                        matched = false
                        break
                    }
                    literals += 1
                } else {
                    value = have
                }
            }
            if matched, literals > best?.literals ?? -1 { best = (route, literals, value) }
        }
        guard let best else {
            let known = Set(routes.map(\.path)).sorted().joined(separator: ", ")
            throw .notFound("no endpoint at \(path.isEmpty ? "/" : path) (endpoints: \(known))")
        }
        let sameTemplate = routes.filter { $0.path == best.route.path }
        guard let route = sameTemplate.first(where: { $0.method == method }) else {
            let allowed = sameTemplate.map(\.method)
            throw ControlError(
                status: 405,
                message: "method \(method) not allowed on \(best.route.path); allowed: "
                    + allowed.joined(separator: ", "),
                allow: allowed)
        }
        return (route, best.value)
    }

    /// The query as a dictionary; 400 naming the parameters that are unknown to `route` or given
    /// more than once.
    static func queryDictionary(
        _ items: [(name: String, value: String)],
        for route: ControlRoute
    ) throws(ControlError) -> [String: String] {
        var query: [String: String] = [:]
        var unknown: [String] = []
        var seenUnknown: Set<String> = []
        for (name, value) in items {
            guard route.queryParameters.contains(name) else {
                if seenUnknown.insert(name).inserted { unknown.append(name) }
                continue
            }
            if query.updateValue(value, forKey: name) != nil {
                throw .badRequest("query parameter '\(name)' given more than once")
            }
        }
        if !unknown.isEmpty {
            let allowed = route.queryParameters.isEmpty ? "none" : route.queryParameters.joined(separator: ", ")
            // Named up to 20, so a flood of junk parameters gets a short answer.
            let named =
                unknown.prefix(20).map { "'\($0)'" }.joined(separator: ", ")
                + (unknown.count > 20 ? " and \(unknown.count - 20) more" : "")
            throw .badRequest(
                "unknown query parameter(s) " + named
                    + " for \(route.method) \(route.path) (allowed: \(allowed))")
        }
        return query
    }

    /// A long poll's `count` (default 1) and `timeoutMs` (milliseconds, default
    /// `defaultWaitMilliseconds`, at most `maxWaitMilliseconds`), for either wait.
    static func waitBounds(_ query: [String: String]) throws(ControlError) -> (count: Int, timeoutMilliseconds: Int) {
        let count = try integer("count", in: query, default: 1, range: 1...Int.max)
        let timeout = try integer(
            "timeoutMs", in: query, default: defaultWaitMilliseconds, range: 0...maxWaitMilliseconds)
        return (count, timeout)
    }

    /// Parses an integer query parameter in `range`, or `defaultValue` when absent.
    static func integer(
        _ name: String, in query: [String: String], default defaultValue: Int,
        range: ClosedRange<Int>
    ) throws(ControlError) -> Int {
        guard let text = query[name] else { return defaultValue }
        guard let value = Int(text) else { throw .badRequest("\(name) must be an integer") }
        guard range.contains(value) else {
            let upper = range.upperBound == Int.max ? "" : " and \(range.upperBound)"
            throw .badRequest(
                upper.isEmpty
                    ? "\(name) must be at least \(range.lowerBound)"
                    : "\(name) must be between \(range.lowerBound)\(upper)")
        }
        return value
    }

    // MARK: Health and stats

    private func health() -> ControlResponse {
        let status = status()
        return ControlResponse(
            status: 200,
            json: [
                "connectionsOpen": .int(Int64(status.connectionsOpen)),
                "listeners": .array(
                    status.listeners.map {
                        var listener: [String: JSONNode] = [
                            "address": .string($0.address), "certificate": $0.certificate.map { .string($0) } ?? .null,
                            "environment": .string($0.environment.rawValue), "name": .string($0.name),
                        ]
                        if let auth = $0.auth { listener["auth"] = .string(auth) }
                        if let asks = $0.clientCertificates { listener["clientCertificates"] = .bool(asks) }
                        return .object(listener)
                    }),
                "openFileLimit": .int(Int64(status.openFileLimit)),
                "openFiles": .int(Int64(status.openFiles)),
                "status": .string("ok"),
                "uptimeMs": .int(status.uptimeMilliseconds),
                "version": .string(status.version),
                "workers": .int(Int64(status.workers)),
            ])
    }

    private func statsResponse() -> ControlResponse {
        let stats = store.stats()
        var byStatus: [String: JSONNode] = [:]
        for (code, n) in stats.byStatus { byStatus[String(code)] = .uint(n) }
        var byReason: [String: JSONNode] = [:]
        for (reason, n) in stats.byReason { byReason[reason.rawValue] = .uint(n) }
        return ControlResponse(
            status: 200,
            json: [
                "byReason": .object(byReason),
                "byStatus": .object(byStatus),
                "capacity": .int(Int64(stats.capacity)),
                "cleared": .uint(stats.cleared),
                "connectionsOpen": .int(Int64(status().connectionsOpen)),
                "events": eventStatsJSON(),
                "evicted": .uint(stats.evicted),
                "evictedTotal": .uint(stats.evictedTotal),
                "lastSeq": .uint(stats.lastSeq),
                "records": .int(Int64(stats.records)),
                "requests": .uint(stats.requests),
            ])
    }

    /// Milliseconds since the epoch by `clock`.
    var nowMilliseconds: Int64 {
        let ms = (clock() * 1000).rounded(.down)
        return ms.isFinite && abs(ms) < 9e15 ? Int64(ms) : 0
    }
}
