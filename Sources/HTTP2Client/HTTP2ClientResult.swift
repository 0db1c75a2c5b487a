import HTTPFields

/// What became of one request of `HTTP2ClientConnection.send`.
public struct HTTP2ClientResult: Sendable, Equatable {
    /// How a request ended.
    public enum Outcome: Sendable, Equatable {
        /// A complete response arrived.
        case response(HTTP2ClientResponse)
        /// The server reset the stream with RST_STREAM and this code.
        case streamReset(HTTP2ErrorCode)
        /// No response: GOAWAY refused it, the connection failed or closed, the wait timed out,
        /// or the response broke HTTP/2 rules.
        case failed(HTTP2ClientError)
    }

    /// The request's position in the array given to `send`.
    public var index: Int
    /// The stream the request went out on; nil when it was never sent.
    public var streamID: Int32?
    /// How it ended.
    public var outcome: Outcome
    /// Milliseconds from sending the request's HEADERS to the stream's end; nil when never sent.
    public var latency: Double?

    /// Creates a result.
    public init(index: Int, streamID: Int32?, outcome: Outcome, latency: Double?) {
        self.index = index
        self.streamID = streamID
        self.outcome = outcome
        self.latency = latency
    }

    /// The response, when one arrived.
    public var response: HTTP2ClientResponse? {
        if case .response(let response) = outcome { return response }
        return nil
    }
}
