import Synchronization

@testable import APNsCore
@testable import ControlAPI
@testable import Faults

/// A `ConnectionDirectory` without a transport: a fixed set of open connections, and a log of
/// the commands carried out. `close` and `reset` end the connection, as the server's would; a
/// connection listed in `withoutSession` refuses a GOAWAY, as one in a handshake delay does.
final class FakeConnectionDirectory: ConnectionDirectory {
    private struct State {
        var open: [ConnectionListEntry]
        var performed: [Performed] = []
        var restarts: [RollingRestart] = []
        /// The last restart started, until cancelled; every connection still to come.
        var running: RollingRestartRun?
        var cancellations = 0
    }

    /// One command carried out.
    struct Performed: Equatable {
        var id: UInt64
        var command: ConnectionCommand
    }

    private let state: Mutex<State>
    private let withoutSession: Set<UInt64>

    /// Listener names besides the HTTP/2 ones (as the server's binary and feedback listeners).
    let otherListenerNames: [String]

    init(_ open: [ConnectionListEntry] = [], withoutSession: Set<UInt64> = [], otherListenerNames: [String] = []) {
        state = Mutex(State(open: open))
        self.withoutSession = withoutSession
        self.otherListenerNames = otherListenerNames
    }

    /// The commands carried out so far, in order (not those for unknown ids).
    var performed: [Performed] { state.withLock { $0.performed } }

    func connections() -> [ConnectionListEntry] {
        state.withLock { $0.open }
    }

    /// The rolling restarts started, in order.
    var restarts: [RollingRestart] { state.withLock { $0.restarts } }

    func startRollingRestart(_ restart: RollingRestart) -> [UInt64] {
        state.withLock { state in
            state.restarts.append(restart)
            let ids = state.open.map(\.id).filter { !withoutSession.contains($0) }.sorted()
            state.running = RollingRestartRun(restart: restart, connectionIDs: ids)
            return ids
        }
    }

    /// Marks connection `id`'s moment of the running restart as come, as its timer would.
    func finishRestartMoment(of id: UInt64) {
        state.withLock { $0.running?.markDone(id) }
    }

    /// How many times `cancelRollingRestart` was called.
    var cancellations: Int { state.withLock { $0.cancellations } }

    func rollingRestartInProgress() -> RollingRestartRun.Status? {
        state.withLock { state in
            guard let run = state.running, run.inProgress else { return nil }
            return run.status(elapsedMilliseconds: 100)
        }
    }

    func cancelRollingRestart() -> Bool {
        state.withLock { state in
            state.cancellations += 1
            defer { state.running = nil }
            return state.running?.inProgress ?? false
        }
    }

    func perform(_ command: ConnectionCommand, onConnection id: UInt64) -> ConnectionCommandOutcome {
        state.withLock { state in
            guard let index = state.open.firstIndex(where: { $0.id == id }) else { return .notFound }
            if case .goaway = command, withoutSession.contains(id) { return .impossible("no HTTP/2 session yet") }
            state.performed.append(Performed(id: id, command: command))
            if command == .close || command == .reset { state.open.remove(at: index) }
            return .done
        }
    }

    /// A TLS sandbox connection with a token identity.
    static func summary(id: UInt64, peer: String = "127.0.0.1:50000", listener: String = "sandbox")
        -> ConnectionListEntry
    {
        ConnectionListEntry(
            id: id, peer: peer, listener: listener, environment: .sandbox, alpn: "h2", tls: true,
            auth: "token KEY1234567 TEAM123456", openStreams: 1, maxConcurrentStreams: 1000,
            requests: 42, ageMilliseconds: 1500)
    }
}
