/// The kinds of connection event, as the JSON `kind` and the `kind` filter name them.
public enum ConnectionEventKind: String, Sendable, CaseIterable, Hashable, Codable {
    /// The HTTP/2 session started: TLS handshake (if any) done, SETTINGS sent; or a legacy binary
    /// or feedback connection's TLS handshake is done.
    case opened
    /// The server sent GOAWAY.
    case goaway
    /// The server closed the TCP connection with a FIN.
    case close
    /// The server reset the TCP connection (RST).
    case reset
    /// The server sent new SETTINGS (a changed MAX_CONCURRENT_STREAMS).
    case settings
    /// The server stopped sending WINDOW_UPDATE (a flow-control stall began).
    case windowStallStart
    /// A flow-control stall ended: the DATA received meanwhile was acknowledged.
    case windowStallEnd
    /// A new connection's TLS handshake (or cleartext HTTP/2 session) was held back.
    case handshakeDelay
    /// A new connection was accepted at the TCP level and will never be answered.
    case silentAccept
    /// A new connection was refused with a TCP reset.
    case refused
    /// The connection is gone (closed by either side), after being `opened`.
    case closed
    /// The server stopped answering anything on the connection, keeping the socket open.
    case blackhole
    /// The legacy binary gateway wrote an error-response packet (docs/legacy-binary.md §3).
    case errorPacket
    /// The feedback service wrote its tuples to a connection (docs/legacy-binary.md §4).
    case feedbackSent

    /// The names, in documentation order.
    public static let names = allCases.map(\.rawValue)
}
