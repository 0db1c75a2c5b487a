import Configuration
import Foundation
import HTTP2Transport
import Recording

/// Connection events of one legacy binary or feedback listener (docs/legacy-binary.md §8): stamps
/// them with the time, the listener and the connection, and stores them (`GET /v1/events`).
struct LegacyEventLog: Sendable {
    /// Where events go.
    let store: ConnectionEventStore
    /// The listener whose connections it records.
    let listener: BinaryListenerConfiguration

    /// Records `action` on `connection`, now.
    func record(_ action: ConnectionEventAction, origin: ConnectionEventOrigin, on connection: ByteStreamConnection) {
        store.append(
            ConnectionEvent(
                time: Date().timeIntervalSince1970, listener: listener.name, environment: listener.environment,
                connectionID: connection.info.id, peer: connection.info.peer, action: action, origin: origin))
    }

    /// Milliseconds since `connection` was accepted.
    static func age(of connection: ByteStreamConnection) -> Int64 {
        Int64((HTTP2Connection.monotonicSeconds() - connection.acceptedAt) * 1000)
    }
}
