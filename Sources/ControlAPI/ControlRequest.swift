import Foundation

/// One HTTP/1.1 request to the control API, as the HTTP adapter received it (the transport's
/// `HTTP1Request`, whose query libevent has parsed; the tests build theirs the same way).
public struct ControlRequest: Sendable {
    /// The method, e.g. `GET` (compared case-sensitively, as HTTP requires).
    public var method: String
    /// The path without the query string, percent-encoded as received (e.g. `/v1/deliveries/5`).
    public var path: String
    /// The query parameters in order, names and values already percent-decoded.
    public var query: [(name: String, value: String)]
    /// The request body (JSON for `PUT /v1/devices/{token}`).
    public var body: [UInt8]
    /// The header fields in the order received (names compared case-insensitively): `Host`,
    /// `Origin`, `Content-Type` and `Authorization` are read by `ControlAccessPolicy`.
    public var headers: [(name: String, value: String)]

    /// Creates a request from its parts.
    public init(
        method: String, path: String, query: [(name: String, value: String)] = [],
        body: [UInt8] = [], headers: [(name: String, value: String)] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.headers = headers
    }

    /// The `accept` header, nil when absent; `GET /metrics` answers OpenMetrics when it asks.
    public var accept: String? { header("accept") }

    /// The value of the first header field named `name` (case-insensitively), or nil.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// How many header fields are named `name` (case-insensitively).
    func headerCount(_ name: String) -> Int {
        headers.reduce(0) { $0 + ($1.name.caseInsensitiveCompare(name) == .orderedSame ? 1 : 0) }
    }
}
