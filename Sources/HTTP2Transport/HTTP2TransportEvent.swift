/// Something the transport did to a connection on its own, told to the handler
/// (`HTTP2RequestHandler.transportEvent`) so the application can record it: no request and no
/// application call caused it.
public enum HTTP2TransportEvent: Sendable, Equatable {
    /// The connection's handshake is held back `seconds` (`HTTP2Admission.proceed(delay:)`).
    case handshakeDelayed(seconds: Double)
    /// The connection is held open and never answered (`HTTP2Admission.silent`).
    case heldSilent
    /// No request for `HTTP2Settings.idleTimeout`: GOAWAY NO_ERROR with `debugData`
    /// (`idleGoAwayDebugData`) was queued, `lastStreamID` as sent; the socket closes once written.
    case idleGoAway(lastStreamID: Int32, debugData: [UInt8])
    /// No request for `HTTP2Settings.idleTimeout` and no idle GOAWAY configured: the connection
    /// is about to be reset (TCP RST).
    case idleReset
    /// No request for `HTTP2Settings.idleTimeout` with `idleBlackhole` set: the connection is
    /// about to be blackholed (it answers nothing more, the socket stays open).
    case idleBlackhole
    /// `shutdownGracefully` queued GOAWAY with `errorCode`, `lastStreamID` and `debugData`.
    case shutdownGoAway(errorCode: UInt32, lastStreamID: Int32, debugData: [UInt8])
}
