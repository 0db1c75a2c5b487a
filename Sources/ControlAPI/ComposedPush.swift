import HTTPFields

/// A push composed in the web console (or any client of `POST /v1/send`), for the server to send
/// to one of its own APNs listeners (docs/console.md).
public struct ComposedPush: Sendable, Equatable {
    /// The listener's name; nil means the first listener.
    public var listener: String?
    /// The device token, lowercase hex.
    public var token: String
    /// The header fields to send, in order, names lowercase (no pseudo-headers).
    public var headers: [HeaderField]
    /// The request body.
    public var payload: [UInt8]

    /// Creates a push.
    public init(listener: String?, token: String, headers: [HeaderField], payload: [UInt8]) {
        self.listener = listener
        self.token = token
        self.headers = headers
        self.payload = payload
    }

    /// The request path, `/3/device/<token>`.
    public var path: String { "/3/device/" + token }
}
