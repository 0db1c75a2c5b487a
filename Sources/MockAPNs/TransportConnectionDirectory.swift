import APNsCore
import ControlAPI
import Faults
import Foundation
import Gateway
import HTTP2Transport
import Recording
import Synchronization

/// The control API's view of the live connections, read from the transport's workers. Commands
/// are recorded as connection events (origin `command`).
final class TransportConnectionDirectory: ConnectionDirectory, @unchecked Sendable {
    /// Set once at start, before the control API serves; read on the control thread.
    weak var server: HTTP2Server?
    /// The transport listener ids (`AcceptedConnection.listenerID`) whose connections this
    /// directory lists and commands: the configured listeners' for the default gateway, its one
    /// listener's for an isolated gateway (docs/testing.md "Isolated gateways"). Set once, before
    /// the control API serves.
    var listenerIDs: Range<Int> = 0..<Int.max
    private let listeners: [APNsRequestHandler.Listener]
    private let actions: ConnectionActionPerformer
    /// The rolling restart started last; its timers check `generation` before acting.
    private let restarts = RollingRestarts()

    /// Shared by the control thread and the workers' timers.
    private final class RollingRestarts: Sendable {
        struct State {
            var generation: UInt64 = 0
            var run: RollingRestartRun?
            var doneBeforeRun: Set<UInt64> = []
            /// Monotonic seconds.
            var startedAt: Double = 0
        }
        private let state = Mutex(State())

        func withLock<T>(_ body: (inout State) -> T) -> T { state.withLock { body(&$0) } }
    }

    init(listeners: [APNsRequestHandler.Listener], actions: ConnectionActionPerformer) {
        self.listeners = listeners
        self.actions = actions
    }

    func connections() -> [ConnectionListEntry] {
        guard let server else { return [] }
        let listeners = self.listeners
        let ids = listenerIDs
        return server.collect { connections in
            let now = HTTP2Connection.monotonicSeconds()
            return connections.filter { ids.contains($0.info.listenerID) }.map { connection in
                let listener = listeners[connection.info.listenerIndex]
                return ConnectionListEntry(
                    id: connection.info.id, peer: connection.info.peer, listener: listener.name,
                    environment: listener.environment, alpn: connection.info.alpn, tls: connection.info.tls,
                    auth: (connection.context as? ConnectionContext)?.credentials.summary ?? "none",
                    openStreams: connection.openStreamCount,
                    maxConcurrentStreams: connection.announcedMaxConcurrentStreams,
                    requests: connection.requestCount, ageMilliseconds: Int64((now - connection.acceptedAt) * 1000),
                    state: connection.isBlackholed
                        ? .blackholed : connection.sentGoAwayLastStreamID != nil ? .goneAway : .open)
            }
        }.sorted { $0.id < $1.id }
    }

    func perform(_ command: ConnectionCommand, onConnection id: UInt64) -> ConnectionCommandOutcome {
        guard let server else { return .notFound }
        let actions = self.actions
        let action = TransportConnectionDirectory.action(for: command)
        let ids = listenerIDs
        let outcomes = server.collect { connections -> [ConnectionCommandOutcome] in
            guard let connection = connections.first(where: { $0.info.id == id && ids.contains($0.info.listenerID) })
            else { return [] }
            guard actions.perform(action, origin: .command, on: connection) else {
                if connection.isBlackholed {
                    return [.impossible("it is blackholed: nothing more is sent on it; use close or reset")]
                }
                if case .drain = command {
                    return [.impossible("its HTTP/2 session has not started, or it has already gone away")]
                }
                if case .blackhole = command {
                    return [.impossible("its HTTP/2 session has not started or has ended")]
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
        let restarts = self.restarts
        // A new generation first, so a timer of a cancelled or earlier run does nothing.
        let generation = restarts.withLock { state -> UInt64 in
            state.generation &+= 1
            state.run = nil
            state.doneBeforeRun = []
            state.startedAt = HTTP2Connection.monotonicSeconds()
            return state.generation
        }
        let listenerIDs = self.listenerIDs
        let ids = server.collect { connections -> [UInt64] in
            connections.filter { $0.isOpen && listenerIDs.contains($0.info.listenerID) }.map { connection in
                let id = connection.info.id
                let seconds = Double(restart.delayMilliseconds(forConnection: id)) / 1000
                connection.loop.schedule(after: seconds) { [weak connection] in
                    let current = restarts.withLock { state -> Bool in
                        guard state.generation == generation else { return false }
                        if state.run == nil { state.doneBeforeRun.insert(id) } else { state.run?.markDone(id) }
                        return true
                    }
                    guard current, let connection else { return }
                    actions.perform(
                        .drain(
                            debugData: ConnectionActionPerformer.drainDebugData,
                            maxMilliseconds: restart.drainMilliseconds),
                        origin: origin, on: connection)
                }
                return id
            }
        }.sorted()
        restarts.withLock { state in
            guard state.generation == generation else { return }
            var run = RollingRestartRun(restart: restart, connectionIDs: ids)
            // Timers that fired before the run existed (a moment of 0 ms).
            for id in state.doneBeforeRun { run.markDone(id) }
            state.run = run
        }
        return ids
    }

    func rollingRestartInProgress() -> RollingRestartRun.Status? {
        let now = HTTP2Connection.monotonicSeconds()
        return restarts.withLock { state in
            // A timer due but not yet run (a busy worker) counts as still to come.
            guard let run = state.run, run.inProgress else { return nil }
            return run.status(elapsedMilliseconds: Int64(((now - state.startedAt) * 1000).rounded(.down)))
        }
    }

    func cancelRollingRestart() -> Bool {
        restarts.withLock { state in
            let wasInProgress = state.run?.inProgress ?? false
            state.generation &+= 1
            state.run = nil
            return wasInProgress
        }
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
