/// One HTTP/1.1 answer of the control API. The body is always JSON (`content-type:
/// application/json`), UTF-8, with sorted keys.
public struct ControlResponse: Sendable, Equatable {
    /// HTTP status code.
    public var status: Int
    /// Headers to send besides `content-type: application/json` and the length (e.g. `allow` on
    /// 405), names lowercase.
    public var headers: [HeaderField]
    /// The JSON body.
    public var body: [UInt8]

    /// Creates an answer from ready body bytes.
    public init(status: Int, headers: [HeaderField] = [], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Creates an answer whose body is `json`, encoded compactly with sorted keys.
    public init(status: Int, json: ControlJSON, headers: [HeaderField] = []) {
        self.init(status: status, headers: headers, body: json.encoded())
    }

    /// The content type of every control API answer.
    public static let contentType = "application/json"
}
