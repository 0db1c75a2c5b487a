import HTTPFields

/// What became of a `ComposedPush`: the listener's HTTP/2 answer, or why there was none.
public struct ComposedPushAnswer: Sendable, Equatable {
    /// The `:status`; nil when no answer came (`error` says why).
    public var status: Int?
    /// The answer's header fields, names lowercase.
    public var headers: [HeaderField]
    /// The answer's body (`{"reason": …}` on an error).
    public var body: [UInt8]
    /// Why there is no answer (connection refused, stream reset, timed out, unknown listener…).
    public var error: String?

    /// An answer.
    public init(status: Int, headers: [HeaderField] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
        self.error = nil
    }

    /// No answer, for `error`.
    public init(error: String) {
        self.status = nil
        self.headers = []
        self.body = []
        self.error = error
    }
}
