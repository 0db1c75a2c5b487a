import APNsCore
import ControlAPI
import HTTP2Transport

/// The control API's view of the live connections, read from the transport's workers. Commands
/// are recorded as connection events (origin `command`).
final class TransportConnectionDirectory: ConnectionDirectory, @unchecked Sendable {
    /// Set once at start, before the control API serves; read on the control thread.
    weak var server: HTTP2Server?
    private let listeners: [APNsRequestHandler.Listener]
    private let events: ConnectionEventRecorder

    init(listeners: [APNsRequestHandler.Listener], events: ConnectionEventRecorder) {
        self.listeners = listeners
        self.events = events
    }

    func connections() -> [ConnectionSummary] {
        guard let server else { return [] }
        let listeners = self.listeners
        return server.collect { connections in
            let now = HTTP2Connection.monotonicSeconds()
            return connections.map { connection in
                let listener = listeners[connection.info.listenerIndex]
                return ConnectionSummary(
                    id: connection.info.id, peer: connection.info.peer, listener: listener.name,
                    environment: listener.environment, alpn: connection.info.alpn, tls: connection.info.tls,
                    auth: (connection.context as? ConnectionState)?.credentials.summary ?? "none",
                    openStreams: connection.openStreamCount,
                    maxConcurrentStreams: connection.announcedMaxConcurrentStreams,
                    requests: connection.requestCount, ageMilliseconds: Int64((now - connection.acceptedAt) * 1000))
            }
        }.sorted { $0.id < $1.id }
    }

    func perform(_ command: ConnectionCommand, onConnection id: UInt64) -> ConnectionCommandOutcome {
        guard let server else { return .notFound }
        let events = self.events
        let outcomes = server.collect { connections -> [ConnectionCommandOutcome] in
            guard let connection = connections.first(where: { $0.info.id == id }) else { return [] }
            switch command {
            case .goaway(let code, let reason, let closeAfter):
                guard connection.canSendGoAway else {
                    return [
                        .impossible(
                            "its HTTP/2 session has not started (a handshake delay or a silent listener) "
                                + "or has ended, so there is no GOAWAY to send; use close or reset")
                    ]
                }
                let debugData = reason.map { GoawayDebugData.reason($0) } ?? []
                events.record(
                    .goaway(
                        errorCode: code, lastStreamID: connection.lastProcessedStreamID, debugData: debugData,
                        closeAfterMilliseconds: closeAfter), origin: .command, on: connection)
                connection.goAway(
                    errorCode: code, debugData: debugData, closeAfter: closeAfter.map { Double($0) / 1000 })
            case .close:
                if !connection.isClosed { events.record(.close(when: nil), origin: .command, on: connection) }
                connection.close()
            case .reset:
                if !connection.isClosed { events.record(.reset(when: nil), origin: .command, on: connection) }
                connection.close(reset: true)
            }
            return [.done]
        }
        return outcomes.first ?? .notFound
    }
}
