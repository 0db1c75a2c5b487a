import APNsCore
import ControlAPI
import HTTP2Transport

/// Serves the JSON control API over HTTP/1.1 (libevent `evhttp`) on its own port, and drives
/// `GET /v1/deliveries/wait` and `GET /v1/events/wait` long polls by re-checking every few
/// milliseconds.
final class ControlServer: @unchecked Sendable {
    /// How often a pending wait re-checks the store, in seconds: well inside the 50 ms promise.
    static let pollInterval = 0.005

    private let api: ControlAPI
    /// Who may use the API: checked on every request before the router (README "Security").
    private let access: ControlAccessPolicy
    private let loop: EventLoop
    private var server: HTTP1Server?
    /// The live streams (`GET /v1/deliveries/stream`, `/v1/events/stream`), in their own type.
    private let streams: LiveStreamHub
    /// Checks whether a pending wait's client has gone every this many polls (a `recv` each):
    /// every 100 ms rather than every 5.
    static let goneCheckEvery = 20

    /// One long poll not yet answered.
    private struct PendingWait {
        var wait: ControlWait
        /// The API it was asked of: the server's, or an isolated gateway's.
        let api: ControlAPI
        let exchange: HTTP1Exchange
        /// Headers the access policy adds to the answer (CORS for a configured origin).
        let extraHeaders: [(String, String)]
        /// Monotonic seconds at which it is answered with what matched.
        let deadline: Double
    }

    /// Long polls not yet answered, by a counter; answered with what matched when the server stops.
    private var pending: [Int: PendingWait] = [:]
    private var nextPending = 0
    /// The one timer that re-checks every pending wait, while there are any: one timer for all
    /// rather than one per wait, so thousands of idle waits cost little.
    private var tick: LoopTimer?
    private var ticks = 0
    /// The stores' generations at the last full pass (summed over the APIs waited on), and the
    /// earliest deadline then: a tick with no change, no deadline due and no gone-check skips the pass.
    private var seenGenerations: (UInt64, UInt64) = (.max, .max)
    private var earliestDeadline = 0.0
    /// True when a pending wait may be asked of an isolated gateway: set when one is added,
    /// recounted at each full pass.
    private var waitsOnGateways = false

    /// Seconds a connection may stay silent while its request is read or between requests
    /// (`HTTP1Server`'s `idleTimeoutSeconds`).
    private let idleTimeoutSeconds: Int

    init(
        api: ControlAPI, access: ControlAccessPolicy = ControlAccessPolicy(), loop: EventLoop,
        idleTimeoutSeconds: Int = HTTP1Server.defaultIdleTimeoutSeconds,
        streamBudget: StreamBudget = StreamBudget(), maxStreams: Int = StreamBudget.defaultMaxStreams
    ) {
        self.streams = LiveStreamHub(
            api: api, loop: loop, budget: streamBudget, maxStreams: maxStreams,
            lingerSeconds: Double(idleTimeoutSeconds))
        self.api = api
        self.access = access
        self.loop = loop
        self.idleTimeoutSeconds = idleTimeoutSeconds
    }

    /// Binds `host:port`. Call before the loop runs. Request line and headers are limited to
    /// `HTTP1Server.defaultMaxHeaderBytes` (1 MiB), the body to 1 MiB.
    func start(host: String, port: Int) throws -> SocketAddress {
        let server = try HTTP1Server(
            loop: loop, host: host, port: port, idleTimeoutSeconds: idleTimeoutSeconds
        ) { [weak self] request, exchange in
            self?.serve(request, exchange)
        }
        self.server = server
        return server.boundAddress
    }

    /// Ends every live stream with its `end` message, and answers every pending long poll as
    /// timed out (with what matched so far) while `budget`
    /// seconds last; waits still pending after it get a short 503, so that a stop is never held
    /// up by rendering huge answers. On the loop's thread.
    func finishWaits(budget: Double) {
        streams.endAll()
        let deadline = HTTP2Connection.monotonicSeconds() + budget
        tick?.cancel()
        tick = nil
        for (_, entry) in pending {
            if entry.exchange.clientHasGone {
                ControlServer.dismiss(entry.exchange)
                continue
            }
            guard HTTP2Connection.monotonicSeconds() < deadline else {
                entry.exchange.respond(
                    status: 503, body: Array(#"{"error":"the server is stopping; the wait did not complete"}"#.utf8))
                continue
            }
            var wait = entry.wait
            if let response = entry.api.waitResult(&wait, timedOut: true) {
                entry.exchange.respond(status: response.status, headers: entry.extraHeaders, body: response.body)
            }
        }
        pending.removeAll()
    }

    /// Answers every pending long poll asked of `api` with what matched (a deleted gateway's),
    /// marked `"gatewayDeleted":true`; on the loop's thread.
    func finishWaits(of api: ControlAPI) {
        streams.endAll(of: api)
        for (key, entry) in pending where entry.api === api {
            var wait = entry.wait
            wait.markGatewayDeleted()
            if entry.exchange.clientHasGone {
                ControlServer.dismiss(entry.exchange)
            } else if let answer = api.waitResult(&wait, timedOut: true) {
                let response = ControlAPI.gatewayDeletedAnswer(answer)
                entry.exchange.respond(status: response.status, headers: entry.extraHeaders, body: response.body)
            }
            pending.removeValue(forKey: key)
        }
    }

    /// True when a live stream read from `api` (an isolated gateway's) is open: its idle TTL does
    /// not run meanwhile. On the loop's thread.
    func hasOpenStreams(of api: ControlAPI) -> Bool { streams.openCount(of: api) > 0 }

    /// Ends a wait whose client closed its end: a short answer (nobody will read a long one) lets
    /// libevent see the close and free the connection at once.
    private static func dismiss(_ exchange: HTTP1Exchange) {
        exchange.respond(
            status: 499,
            body: Array(#"{"error":"the client closed its end of the connection before the wait completed"}"#.utf8))
    }

    /// Frees the listener and its connections once every answer sent is written out (or
    /// `seconds` have passed: a client that stopped reading cannot hold the stop up), then calls
    /// `done`. On the loop's thread; `finishWaits` first, so that the waits' answers are among them.
    func closeWhenWritten(within seconds: Double, then done: @escaping @Sendable () -> Void) {
        let deadline = HTTP2Connection.monotonicSeconds() + seconds
        func check() {
            guard let server, server.unwrittenReplies > 0, HTTP2Connection.monotonicSeconds() < deadline else {
                close()
                done()
                return
            }
            _ = loop.schedule(after: 0.005) { check() }
        }
        check()
    }

    /// Frees the listener and its connections; on the loop's thread.
    func close() {
        server?.close()
        server = nil
    }

    private func serve(_ request: HTTP1Request, _ exchange: HTTP1Exchange) {
        var control = ControlRequest(
            method: request.method, path: request.path, query: request.query, body: request.body,
            headers: request.headers)
        let extra: [(String, String)]
        switch access.decide(control) {
        case .answer(let response):
            exchange.respond(
                status: response.status, headers: response.headers.map { ($0.name, $0.value) }, body: response.body)
            return
        case .serve(let headers):
            extra = headers.map { ($0.name, $0.value) }
        }
        // `/v1/gateways/{id}/…` is served by that gateway's own API (docs/testing.md "Isolated gateways").
        var api = self.api
        if let (id, rest) = ControlAPI.gatewayPrefix(of: control.path), let gateways = api.gateways {
            guard let gatewayAPI = gateways.gatewayAPI(id: id) else {
                let response = ControlAPI.unknownGateway(id).response
                exchange.respond(status: response.status, headers: extra, body: response.body)
                return
            }
            api = gatewayAPI
            control.path = rest
        }
        switch api.handle(control) {
        case .response(let response):
            exchange.respond(
                status: response.status, contentType: response.contentType,
                headers: response.headers.map { ($0.name, $0.value) } + extra, body: response.body)
        case .stream(let stream):
            streams.open(stream, from: api, on: exchange, headers: extra)
        case .wait(let wait):
            let deadline = HTTP2Connection.monotonicSeconds() + Double(wait.timeoutMilliseconds) / 1000
            var entry = PendingWait(wait: wait, api: api, exchange: exchange, extraHeaders: extra, deadline: deadline)
            guard !settle(&entry, checkGone: true) else { return }
            nextPending += 1
            pending[nextPending] = entry
            if api !== self.api { waitsOnGateways = true }
            seenGenerations = (.max, .max)  // the next tick makes a full pass
            scheduleTick()
        }
    }

    /// Answers `entry` when its client has gone (checked only when `checkGone`), enough matched,
    /// or its deadline passed; returns true when it was answered.
    private func settle(_ entry: inout PendingWait, checkGone: Bool) -> Bool {
        if checkGone && entry.exchange.clientHasGone {
            ControlServer.dismiss(entry.exchange)
            return true
        }
        // A verification still part way through its look goes on in bounded looks past its deadline
        // (the control thread stays free) and answers once it has looked at every record.
        let timedOut = HTTP2Connection.monotonicSeconds() >= entry.deadline && !entry.wait.needsAnotherLook
        guard let response = entry.api.waitResult(&entry.wait, timedOut: timedOut) else { return false }
        entry.exchange.respond(status: response.status, headers: entry.extraHeaders, body: response.body)
        return true
    }

    /// The generations of the stores the pending waits watch: the server's alone when no wait is
    /// asked of a gateway (the usual case, no pass over the waits), else summed over the APIs
    /// waited on (generations only grow, so the sum moves whenever one does).
    private func pendingGenerations() -> (UInt64, UInt64) {
        // Recounted at each full pass; true while a wait on a gateway may be pending.
        guard waitsOnGateways else {
            return (api.store.generation, api.events.generation)
        }
        var seen: [ObjectIdentifier: ControlAPI] = [ObjectIdentifier(api): api]
        for entry in pending.values { seen[ObjectIdentifier(entry.api)] = entry.api }
        var sums: (UInt64, UInt64) = (0, 0)
        for api in seen.values {
            sums.0 &+= api.store.generation
            sums.1 &+= api.events.generation
        }
        return sums
    }

    private func scheduleTick() {
        guard tick == nil, !pending.isEmpty else { return }
        tick = loop.schedule(after: ControlServer.pollInterval) { [weak self] in
            guard let self else { return }
            self.tick = nil
            self.ticks &+= 1
            let checkGone = self.ticks % ControlServer.goneCheckEvery == 0
            let generations = self.pendingGenerations()
            if !checkGone, generations == self.seenGenerations,
                HTTP2Connection.monotonicSeconds() < self.earliestDeadline
            {
                self.scheduleTick()
                return
            }
            self.seenGenerations = generations
            for key in Array(self.pending.keys) {
                guard var entry = self.pending[key] else { continue }
                if self.settle(&entry, checkGone: checkGone) {
                    self.pending.removeValue(forKey: key)
                } else {
                    self.pending[key] = entry
                }
            }
            self.earliestDeadline = self.pending.values.lazy.map(\.deadline).min() ?? 0
            // A verification part way through its first look goes on at the next tick.
            if self.pending.values.contains(where: { $0.wait.needsAnotherLook }) { self.seenGenerations = (.max, .max) }
            self.waitsOnGateways = self.pending.values.contains { $0.api !== self.api }
            self.scheduleTick()
        }
    }
}
