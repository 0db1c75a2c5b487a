import HTTP2Transport

@testable import ControlAPI

/// Control requests in tests are built as the server builds them: the target parsed by the
/// transport's `HTTP1Request` (libevent's query parser), then handed over field by field as
/// `ControlServer` does.
extension ControlRequest {
    /// A request to `target` (`/v1/deliveries?topic=a+b`); stops the test run when the query is
    /// one the server would refuse (400 `malformed query string`).
    init(method: String, target: String, body: [UInt8] = [], headers: [(name: String, value: String)] = []) {
        guard let http = HTTP1Request(method: method, target: target, body: body, headers: headers) else {
            preconditionFailure("a test target the server refuses as a malformed query: \(target)")
        }
        self.init(method: http.method, path: http.path, query: http.query, body: http.body, headers: http.headers)
    }
}
