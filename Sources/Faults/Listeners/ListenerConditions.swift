/// Conditions a listener applies to new connections, to reproduce how APNs connections fail
/// before any request (docs/field-cases.md C15): set at runtime with `PUT /v1/listeners/{name}/conditions`.
public struct ListenerConditions: Sendable, Equatable, Codable {
    /// Milliseconds a new connection waits before its TLS handshake (or, cleartext, its HTTP/2
    /// session) starts: the client sees a slow handshake. 0: none.
    public var handshakeDelayMs: Int64
    /// When true, new connections are accepted at the TCP level and never answered.
    public var silent: Bool
    /// New connections are refused (closed at once with a TCP reset) until this time,
    /// milliseconds since the Unix epoch; nil: accepted.
    public var refuseUntil: Int64?

    public init(handshakeDelayMs: Int64 = 0, silent: Bool = false, refuseUntil: Int64? = nil) {
        self.handshakeDelayMs = handshakeDelayMs
        self.silent = silent
        self.refuseUntil = refuseUntil
    }

    /// What the listener does with a connection accepted at `nowMilliseconds`.
    public func admission(nowMilliseconds: Int64) -> Admission {
        if let refuseUntil, nowMilliseconds < refuseUntil { return .refuse }
        if silent { return .silent }
        return .proceed(delayMilliseconds: handshakeDelayMs)
    }

    /// The decision for one new connection.
    public enum Admission: Sendable, Equatable {
        /// Serve it, after a delay in milliseconds (0: at once).
        case proceed(delayMilliseconds: Int64)
        /// Keep the TCP connection and never answer.
        case silent
        /// Close it at once with a TCP reset.
        case refuse
    }
}
