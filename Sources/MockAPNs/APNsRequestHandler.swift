import APNsCore
import HTTP2Transport

/// Connects the HTTP/2 transport to the `Gateway`: converts each complete request to a
/// `PushRequest`, lets the gateway decide and record it, and hands the response back.
final class APNsRequestHandler: HTTP2RequestHandler {
    /// One entry per listener, in the transport's listener order.
    struct Listener: Sendable {
        var name: String
        var environment: APNsEnvironment
    }

    private let gateway: Gateway
    private let listeners: [Listener]

    init(gateway: Gateway, listeners: [Listener]) {
        self.gateway = gateway
        self.listeners = listeners
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
        let (response, _) = gateway.handle(push, connection: info, streamID: request.streamID)
        return .respond(HTTP2Response(status: response.status,
                                      headers: response.headers.map { ($0.name, $0.value) },
                                      body: response.body))
    }

    func connectionOpened(_ connection: HTTP2Connection) {}
    func connectionClosed(_ connection: HTTP2Connection) {}
}
