@testable import APNsCore
@testable import Faults
@testable import Recording

/// Connection events for the recording and control API tests.
enum EventFixtures {
    /// An event of `action` at `time` on connection `connection` of listener `listener`.
    static func event(
        _ action: ConnectionEventAction = .close(when: nil), origin: ConnectionEventOrigin = .command,
        time: Double = 1_796_028_543.123, listener: String = "sandbox",
        environment: APNsEnvironment = .sandbox, connection: UInt64? = 3
    ) -> ConnectionEvent {
        ConnectionEvent(
            time: time, listener: listener, environment: environment, connectionID: connection,
            peer: "127.0.0.1:50000", action: action, origin: origin)
    }
}
