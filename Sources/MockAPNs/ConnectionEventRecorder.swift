import APNsCore
import Foundation
import HTTP2Transport
import Recording

/// Stamps connection events with the time, listener and connection, stores them, and logs them
/// at debug level. Used by the request handler (lifecycle and listener-condition events) and by
/// the `ConnectionActionPerformer` (everything done to a connection); thread-safe (the store is).
struct ConnectionEventRecorder: Sendable {
    /// Where events go (`GET /v1/events`).
    let store: ConnectionEventStore
    /// The listeners, in the transport's order.
    let listeners: [APNsRequestHandler.Listener]
    let logger: Logger

    /// Records `action` on `connection`, now; call on the connection's loop thread.
    func record(_ action: ConnectionEventAction, origin: ConnectionEventOrigin, on connection: HTTP2Connection) {
        record(
            action, origin: origin, listenerIndex: connection.info.listenerIndex, connectionID: connection.info.id,
            peer: connection.info.peer)
    }

    /// Records `action` for a connection known by its listener and peer (a refused connection
    /// has no id).
    func record(
        _ action: ConnectionEventAction, origin: ConnectionEventOrigin, listenerIndex: Int,
        connectionID: UInt64?, peer: String
    ) {
        let listener = listeners[listenerIndex]
        let event = ConnectionEvent(
            time: Date().timeIntervalSince1970, listener: listener.name,
            environment: listener.environment, connectionID: connectionID, peer: peer,
            action: action, origin: origin)
        let seq = store.append(event)
        logger.log(
            .debug,
            "event \(seq): connection \(connectionID.map(String.init) ?? "-") from \(peer): \(event.description)")
    }
}
