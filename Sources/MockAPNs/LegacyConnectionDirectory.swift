import ControlAPI
import HTTP2Transport

/// The legacy binary gateway's and feedback service's live connections, for the control API
/// (docs/legacy-binary.md §8): listed as `protocol` `binary` / `feedback`; `close` and `reset`
/// act on them; GOAWAY, drain and blackhole, which are HTTP/2's, are refused (409) naming why.
final class LegacyConnectionDirectory: @unchecked Sendable {
    /// Set once at start, before the control API serves.
    weak var server: ByteStreamServer?
    /// The handler of each listener, by listener index; set once at start.
    var handlers: [LegacyConnectionHandler] = []

    /// The listeners' names.
    var listenerNames: [String] { handlers.map(\.listener.name) }

    /// Every established connection, by id.
    func connections() -> [ConnectionListEntry] {
        guard let server else { return [] }
        let handlers = self.handlers
        return server.collect { connections in
            connections.filter { $0.isEstablished && !$0.isClosed }.map {
                handlers[$0.info.listenerIndex].entry(of: $0)
            }
        }.sorted { $0.id < $1.id }
    }

    /// Whether `id` is in the legacy listeners' range (counted from 2^32).
    static func owns(_ id: UInt64) -> Bool { id >= 1 << 32 }

    /// Carries out `command` on connection `id`: close and reset now; the others are refused.
    func perform(_ command: ConnectionCommand, onConnection id: UInt64) -> ConnectionCommandOutcome {
        guard let server else { return .notFound }
        let handlers = self.handlers
        let outcomes = server.collect { connections -> [ConnectionCommandOutcome] in
            guard let connection = connections.first(where: { $0.info.id == id && $0.isEstablished && !$0.isClosed })
            else { return [] }
            let handler = handlers[connection.info.listenerIndex]
            switch command {
            case .close:
                handler.close(connection, reset: false)
                return [.done]
            case .reset:
                handler.close(connection, reset: true)
                return [.done]
            case .goaway, .drain, .blackhole:
                return [.impossible(Self.refusal(of: command, transport: handler.listener.kind.rawValue))]
            }
        }
        return outcomes.first ?? .notFound
    }

    /// Why `command` has no meaning on a legacy connection.
    static func refusal(of command: ConnectionCommand, transport: String) -> String {
        let name: String
        switch command {
        case .goaway: name = "goaway"
        case .drain: name = "drain"
        case .blackhole: name = "blackhole"
        case .close: name = "close"
        case .reset: name = "reset"
        }
        return "it is a legacy \(transport) connection: \(name) is an HTTP/2 command (GOAWAY) with no meaning "
            + "in the binary protocol; use close or reset (docs/legacy-binary.md)"
    }
}
