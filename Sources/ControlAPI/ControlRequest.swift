import Foundation

/// One HTTP/1.1 request to the control API, as the HTTP adapter received it.
public struct ControlRequest: Sendable {
    /// The method, e.g. `GET` (compared case-sensitively, as HTTP requires).
    public var method: String
    /// The path without the query string, percent-encoded as received (e.g. `/v1/deliveries/5`).
    public var path: String
    /// The query parameters in order, names and values already percent-decoded.
    public var query: [(name: String, value: String)]
    /// The request body (JSON for `PUT /v1/devices/{token}`).
    public var body: [UInt8]

    /// Creates a request from its parts.
    public init(
        method: String, path: String, query: [(name: String, value: String)] = [],
        body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
    }

    /// Creates a request from the request target as sent (`/v1/deliveries?status=400&topic=a`):
    /// splits off the query and decodes it (`application/x-www-form-urlencoded`: `+` is a space,
    /// `%XX` escapes). A parameter without `=` has an empty value. A query that is not valid
    /// percent-encoding is kept undecoded, so the router reports the parameter rather than
    /// failing here.
    public init(method: String, target: String, body: [UInt8] = []) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [(name: String, value: String)] = []
        if parts.count > 1 {
            for item in parts[1].split(separator: "&") where !item.isEmpty {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = Self.formDecode(pair[0])
                let value = pair.count > 1 ? Self.formDecode(pair[1]) : ""
                query.append((name, value))
            }
        }
        self.init(method: method, path: String(parts.first ?? ""), query: query, body: body)
    }

    private static func formDecode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
