/// How a stream ended without response HEADERS having been written (told to the handler by
/// `HTTP2RequestHandler.streamEndedUnanswered`): the client got no status on it.
public enum HTTP2StreamEnd: Sendable, Equatable {
    /// This side closed the connection (FIN) with the stream open.
    case connectionClosed
    /// This side reset the connection (TCP RST) with the stream open.
    case connectionReset
    /// The peer closed or reset the connection, or the socket failed, with the stream open.
    case connectionClosedByPeer
    /// The stream's id is above the last-stream-id of a GOAWAY this side sent.
    case aboveLastStreamID
    /// The peer sent RST_STREAM.
    case resetByPeer
    /// This side sent RST_STREAM (the handler's `.resetStream`, or nghttp2 on a stream error).
    case resetByServer
}
