import APNsCore
import HTTP2Transport

/// Serves the JSON control API over HTTP/1.1 (libevent `evhttp`) on its own port, and drives
/// `GET /v1/deliveries/wait` and `GET /v1/events/wait` long polls by re-checking every few
/// milliseconds.
final class ControlServer: @unchecked Sendable {
    /// How often a pending wait re-checks the store, in seconds: well inside the 50 ms promise.
    static let pollInterval = 0.005

    private let api: ControlAPI
    private let loop: EventLoop
    private var server: HTTP1Server?
    /// Long polls not yet answered, by a counter; answered with what matched when the server stops.
    private var pending: [Int: (wait: ControlWait, exchange: HTTP1Exchange, timer: LoopTimer?)] = [:]
    private var nextPending = 0

    init(api: ControlAPI, loop: EventLoop) {
        self.api = api
        self.loop = loop
    }

    /// Binds `host:port`. Call before the loop runs.
    func start(host: String, port: Int) throws -> SocketAddress {
        let server = try HTTP1Server(loop: loop, host: host, port: port) { [weak self] request, exchange in
            self?.serve(request, exchange)
        }
        self.server = server
        return server.boundAddress
    }

    /// Answers every pending long poll as timed out (with what matched so far) while `budget`
    /// seconds last; waits still pending after it get a short 503, so that a stop is never held
    /// up by rendering huge answers. On the loop's thread.
    func finishWaits(budget: Double) {
        let deadline = HTTP2Connection.monotonicSeconds() + budget
        for (_, entry) in pending {
            entry.timer?.cancel()
            if entry.exchange.clientHasGone {
                ControlServer.dismiss(entry.exchange)
                continue
            }
            guard HTTP2Connection.monotonicSeconds() < deadline else {
                entry.exchange.respond(status: 503, body: Array(#"{"error":"the server is stopping; the wait did not complete"}"#.utf8))
                continue
            }
            var wait = entry.wait
            if let response = api.waitResult(&wait, timedOut: true) {
                entry.exchange.respond(status: response.status, body: response.body)
            }
        }
        pending.removeAll()
    }

    /// Ends a wait whose client closed its end: a short answer (nobody will read a long one) lets
    /// libevent see the close and free the connection at once.
    private static func dismiss(_ exchange: HTTP1Exchange) {
        exchange.respond(status: 499, body: Array(#"{"error":"the client closed its end of the connection before the wait completed"}"#.utf8))
    }

    /// Frees the listener and its connections; on the loop's thread.
    func close() {
        server?.close()
        server = nil
    }

    private func serve(_ request: HTTP1Request, _ exchange: HTTP1Exchange) {
        let control = ControlRequest(method: request.method, path: request.path, query: request.query, body: request.body)
        switch api.handle(control) {
        case .response(let response):
            exchange.respond(status: response.status, headers: response.headers.map { ($0.name, $0.value) },
                             body: response.body)
        case .wait(let wait):
            let deadline = HTTP2Connection.monotonicSeconds() + Double(wait.timeoutMilliseconds) / 1000
            poll(wait, exchange, deadline: deadline)
        }
    }

    private func poll(_ current: ControlWait, _ exchange: HTTP1Exchange, deadline: Double, key: Int? = nil) {
        if exchange.clientHasGone {
            if let key { pending.removeValue(forKey: key) }
            ControlServer.dismiss(exchange)
            return
        }
        var wait = current
        let timedOut = HTTP2Connection.monotonicSeconds() >= deadline
        if let response = api.waitResult(&wait, timedOut: timedOut) {
            if let key { pending.removeValue(forKey: key) }
            exchange.respond(status: response.status, body: response.body)
            return
        }
        let slot = key ?? { nextPending += 1; return nextPending }()
        let timer = loop.schedule(after: ControlServer.pollInterval) { [weak self] in
            self?.poll(wait, exchange, deadline: deadline, key: slot)
        }
        pending[slot] = (wait, exchange, timer)
    }
}
