import APNsCore
import HTTP2Transport

/// Connects the HTTP/2 transport to the `Gateway`: converts each complete request to a
/// `PushRequest`, lets the gateway decide and record it, and hands the response back.
/// Also carries out the `apple-observed` stream profile's SETTINGS changes.
final class APNsRequestHandler: HTTP2RequestHandler {
    /// One entry per listener, in the transport's listener order.
    struct Listener: Sendable {
        var name: String
        var environment: APNsEnvironment
    }

    /// Per-connection state, kept in `HTTP2Connection.context` (loop thread only).
    final class ConnectionState {
        /// True while MAX_CONCURRENT_STREAMS is lowered to 1 after a rejection.
        var streamsLowered = false
    }

    private let gateway: Gateway
    private let listeners: [Listener]
    private let profile: StreamProfile
    private let maxConcurrentStreams: UInt32
    private let logger: Logger
    private let debug: Bool

    init(gateway: Gateway, listeners: [Listener], profile: StreamProfile, maxConcurrentStreams: UInt32, logger: Logger) {
        self.gateway = gateway
        self.listeners = listeners
        self.profile = profile
        self.maxConcurrentStreams = maxConcurrentStreams
        self.logger = logger
        debug = LogLevel.debug <= logger.level
    }

    func handle(_ request: HTTP2Request, on connection: HTTP2Connection) -> HTTP2Action {
        let listener = listeners[connection.info.listenerIndex]
        var headers: [HeaderField] = []
        headers.reserveCapacity(request.headers.count)
        for field in request.headers { headers.append(HeaderField(name: field.name, value: field.value)) }
        let push = PushRequest(method: request.method, path: request.path, authority: request.authority,
                               headers: headers, body: request.body)
        let info = ConnectionInfo(id: connection.info.id, listener: listener.name,
                                  environment: listener.environment, peer: connection.info.peer)
        let (response, seq) = gateway.handle(push, connection: info, streamID: request.streamID)
        if profile == .appleObserved { applyAppleObservedProfile(accepted: response.status == 200, connection) }
        if debug {
            logger.log(.debug, "connection \(info.id) stream \(request.streamID) \(request.method) \(request.path) -> \(response.status) (record \(seq))")
        }
        return .respond(HTTP2Response(status: response.status,
                                      headers: response.headers.map { ($0.name, $0.value) },
                                      body: response.body))
    }

    /// After a rejection MAX_CONCURRENT_STREAMS drops to 1; the next accepted push restores it
    /// (observed: openradar 27870881, pushy #732; spec section 6).
    private func applyAppleObservedProfile(accepted: Bool, _ connection: HTTP2Connection) {
        let state = connection.context as? ConnectionState ?? ConnectionState()
        connection.context = state
        if !accepted && !state.streamsLowered {
            state.streamsLowered = true
            connection.setMaxConcurrentStreams(1)
        } else if accepted && state.streamsLowered {
            state.streamsLowered = false
            connection.setMaxConcurrentStreams(maxConcurrentStreams)
        }
    }

    func connectionOpened(_ connection: HTTP2Connection) {
        if debug { logger.log(.debug, "connection \(connection.info.id) opened from \(connection.info.peer), ALPN \(connection.info.alpn ?? "none")") }
    }

    func connectionClosed(_ connection: HTTP2Connection) {
        if debug { logger.log(.debug, "connection \(connection.info.id) closed after \(connection.requestCount) requests") }
    }
}
