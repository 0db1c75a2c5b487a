import APNsCore
import ControlAPI
import Faults
import Foundation
import Gateway
import HTTP2Transport
import Recording

/// The control API's view of the live connections, read from the transport's workers. Commands
/// are recorded as connection events (origin `command`).
final class TransportConnectionDirectory: ConnectionDirectory, @unchecked Sendable {
    /// Set once at start, before the control API serves; read on the control thread.
    weak var server: HTTP2Server?
    private let listeners: [APNsRequestHandler.Listener]
    private let actions: ConnectionActionPerformer

    init(listeners: [APNsRequestHandler.Listener], actions: ConnectionActionPerformer) {
        self.listeners = listeners
        self.actions = actions
    }

    func connections() -> [ConnectionListEntry] {
        guard let server else { return [] }
        let listeners = self.listeners
        return server.collect { connections in
            let now = HTTP2Connection.monotonicSeconds()
            return connections.map { connection in
                let listener = listeners[connection.info.listenerIndex]
                return ConnectionListEntry(
                    id: connection.info.id, peer: connection.info.peer, listener: listener.name,
                    environment: listener.environment, alpn: connection.info.alpn, tls: connection.info.tls,
                    auth: (connection.context as? ConnectionContext)?.credentials.summary ?? "none",
                    openStreams: connection.openStreamCount,
                    maxConcurrentStreams: connection.announcedMaxConcurrentStreams,
                    requests: connection.requestCount, ageMilliseconds: Int64((now - connection.acceptedAt) * 1000))
            }
        }.sorted { $0.id < $1.id }
    }

    func perform(_ command: ConnectionCommand, onConnection id: UInt64) -> ConnectionCommandOutcome {
        guard let server else { return .notFound }
        let actions = self.actions
        let action = TransportConnectionDirectory.action(for: command)
        let outcomes = server.collect { connections -> [ConnectionCommandOutcome] in
            guard let connection = connections.first(where: { $0.info.id == id }) else { return [] }
            guard actions.perform(action, origin: .command, on: connection) else {
                if case .drain = command {
                    return [.impossible("its HTTP/2 session has not started, or it has already gone away")]
                }
                if case .blackhole = command {
                    return [.impossible("its HTTP/2 session has not started or has ended, or it is blackholed already")]
                }
                return [
                    .impossible(
                        "its HTTP/2 session has not started (a handshake delay or a silent listener) "
                            + "or has ended, so there is no GOAWAY to send; use close or reset")
                ]
            }
            return [.done]
        }
        return outcomes.first ?? .notFound
    }

    func startRollingRestart(_ restart: RollingRestart) -> [UInt64] {
        guard let server else { return [] }
        let actions = self.actions
        let origin = ConnectionEventOrigin.scenario(FaultScenario.rollingRestart.rawValue)
        return server.collect { connections -> [UInt64] in
            connections.filter(\.isOpen).map { connection in
                let id = connection.info.id
                let seconds = Double(restart.delayMilliseconds(forConnection: id)) / 1000
                connection.loop.schedule(after: seconds) { [weak connection] in
                    guard let connection else { return }
                    actions.perform(
                        .drain(
                            debugData: ConnectionActionPerformer.drainDebugData,
                            maxMilliseconds: restart.drainMilliseconds),
                        origin: origin, on: connection)
                }
                return id
            }
        }.sorted()
    }

    /// The connection action of a command: GOAWAY for the highest stream processed, with
    /// `{"reason":...}` when a reason is given; close and reset now, not tied to a stream.
    static func action(for command: ConnectionCommand) -> ConnectionAction {
        switch command {
        case .goaway(let code, let reason, let closeAfter):
            return .goaway(
                errorCode: code, lastStreamID: nil, debugData: reason.map { ReasonJSON.bytes($0) } ?? [],
                closeAfterMilliseconds: closeAfter, thenBare: false)
        case .close: return .close(reset: false, when: nil)
        case .reset: return .close(reset: true, when: nil)
        case .blackhole: return .blackhole
        case .drain(let reason, let maxMilliseconds):
            return .drain(
                debugData: reason.map { ReasonJSON.bytes($0) } ?? [], maxMilliseconds: maxMilliseconds)
        }
    }
}
