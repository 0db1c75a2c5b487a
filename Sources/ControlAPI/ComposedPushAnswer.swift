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
    /// True when the sender refused the push because it holds as many sends as it may: nothing
    /// was sent, and `POST /v1/send` answers 429 with `error` and `retry-after`.
    public var busy = false

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

    /// Not sent: the sender is busy (`busy`), for `error`.
    public static func busy(_ error: String) -> ComposedPushAnswer {
        var answer = ComposedPushAnswer(error: error)
        answer.busy = true
        return answer
    }
}
