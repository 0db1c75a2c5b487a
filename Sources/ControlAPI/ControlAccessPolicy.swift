import Foundation
import HTTPFields
import JSONInput
import JSONSupport
import SystemSupport

/// Who may use the control API (README "Security", issue 19 §1): the checks made on every
/// request before the router sees it, so that neither a web page the developer visits nor a
/// DNS-rebinding page can read or change MockAPNs.
///
/// In order, each refusal a JSON `{"error": …}` naming the header at fault:
/// 1. `Host` must be a loopback address (`127.0.0.0/8`, `::1`), `localhost`, or one of
///    `allowedHosts` (any port); otherwise 403. A missing or repeated `Host` is refused too.
/// 2. With `allowedOrigins`, an `OPTIONS` preflight (`Access-Control-Request-Method`) from one of
///    them is answered 204 with the CORS headers; without, no CORS header is ever sent.
/// 3. `POST`, `PUT`, `PATCH` and `DELETE` carrying an `Origin` other than the control API's own
///    (`http://` + the `Host` sent) or one of `allowedOrigins` are refused 403.
/// 4. With a `token`, every other request needs `Authorization: Bearer <token>` (compared in
///    constant time); otherwise 401 with `WWW-Authenticate: Bearer`. The one exception is a `GET`
///    of the web console's own files (`/console`, `/console/…`, `isConsoleFile`): they hold no data,
///    and a browser opening the page cannot send a bearer token; the page then asks for the token
///    and sends it with every API request (docs/console.md).
/// 5. A state-changing request's body must be `application/json`: a `Content-Type` of another
///    media type, or a body without one, is refused 415. An empty body without a content type
///    is fine.
public struct ControlAccessPolicy: Sendable, CustomStringConvertible {
    /// Host names (lowercase, without port) accepted besides loopback addresses and `localhost`;
    /// `*` accepts any.
    public var allowedHosts: [String]
    /// Origins (`scheme://host[:port]`, lowercase) that may change state and get CORS headers.
    public var allowedOrigins: [String]
    /// The bearer token every request must carry; nil requires none.
    private var token: [UInt8]?

    /// A policy; the defaults accept loopback and `localhost` hosts, the API's own origin, no
    /// token.
    public init(allowedHosts: [String] = [], allowedOrigins: [String] = [], token: String? = nil) {
        self.allowedHosts = allowedHosts.map { $0.lowercased() }
        self.allowedOrigins = allowedOrigins.map { Self.normalizedOrigin($0) }
        self.token = token.map { Array($0.utf8) }
    }

    /// True when a bearer token is required.
    public var requiresToken: Bool { token != nil }

    /// Never shows the token.
    public var description: String {
        "ControlAccessPolicy(allowedHosts: \(allowedHosts), allowedOrigins: \(allowedOrigins), "
            + "token: \(token == nil ? "none" : "<redacted>"))"
    }

    /// The methods that change state, whose `Origin` and body type are checked.
    static let stateChangingMethods: Set<String> = ["POST", "PUT", "PATCH", "DELETE"]

    /// What to do with `request`: answer it here (a refusal or a preflight), or serve it.
    public func decide(_ request: ControlRequest) -> ControlAccessDecision {
        let hosts = request.headers.filter { $0.name.caseInsensitiveCompare("host") == .orderedSame }
        guard hosts.count == 1, let host = hosts.first?.value, !host.isEmpty else {
            return .answer(
                Self.refusal(
                    403,
                    hosts.isEmpty
                        ? "a Host header is required"
                        : "exactly one Host header is allowed (\(hosts.count) given)"))
        }
        guard hostIsAllowed(host) else {
            return .answer(
                Self.refusal(
                    403,
                    "Host \(InputError.quoted(host)) is not allowed: the control API answers only loopback "
                        + "addresses, localhost and the names of --control-allow-host (control.allowHosts), "
                        + "so that a DNS-rebinding web page cannot reach it"))
        }
        let origin = request.header("origin").map(Self.normalizedOrigin)
        let configuredOrigin = origin.flatMap { allowedOrigins.contains($0) ? $0 : nil }
        let cors = configuredOrigin.map(Self.corsHeaders) ?? []
        if request.method == "OPTIONS", configuredOrigin != nil, request.header("access-control-request-method") != nil
        {
            return .answer(ControlResponse(status: 204, headers: (cors + Self.preflightHeaders), body: []))
        }
        let changesState = Self.stateChangingMethods.contains(request.method)
        if changesState, let origin, configuredOrigin == nil, origin != Self.normalizedOrigin("http://" + host) {
            return .answer(
                Self.refusal(
                    403,
                    "Origin \(InputError.quoted(origin)) may not change the control API: only its own origin "
                        + "(\(InputError.quoted("http://" + host))) and those of --control-allow-origin "
                        + "(control.allowOrigins) may"))
        }
        if let token, !Self.isConsoleFile(request), !Self.carries(token, request.header("authorization")) {
            var answer = Self.refusal(
                401,
                "missing or wrong bearer token: send Authorization: Bearer <token>, the token given by "
                    + "--control-token, MOCK_APNS_CONTROL_TOKEN or control.token")
            answer.headers.append(
                HeaderField(name: "www-authenticate", value: #"Bearer realm="mock-apns control API""#))
            answer.headers += cors
            return .answer(answer)
        }
        if changesState {
            let type = request.header("content-type")
            if let type, Self.mediaType(type) != "application/json" {
                var answer = Self.refusal(
                    415,
                    "request bodies must be application/json, got content-type \(InputError.quoted(type))")
                answer.headers += cors
                return .answer(answer)
            }
            if type == nil, !request.body.isEmpty {
                var answer = Self.refusal(
                    415, "request bodies must be application/json: send content-type: application/json")
                answer.headers += cors
                return .answer(answer)
            }
        }
        return .serve(extraHeaders: cors)
    }

    // MARK: Checks

    /// True for a `GET` of the console's static files: `/console`, `/console/` or
    /// `/console/NAME` (one segment, as the router serves).
    static func isConsoleFile(_ request: ControlRequest) -> Bool {
        guard request.method == "GET" else { return false }
        let path = request.path
        if path == "/console" || path == "/console/" { return true }
        guard path.hasPrefix("/console/") else { return false }
        let rest = path.dropFirst("/console/".count)
        return !rest.isEmpty && !rest.contains("/")
    }

    /// True for a loopback address, `localhost` or an allowed name, with or without a port.
    func hostIsAllowed(_ value: String) -> Bool {
        guard let name = Self.hostName(value)?.lowercased() else { return false }
        if Self.isLoopback(name) { return true }
        return allowedHosts.contains("*") || allowedHosts.contains(name)
    }

    /// The host of a `Host` value: `name`, `name:port`, `[v6]`, `[v6]:port`; nil when malformed.
    static func hostName(_ value: String) -> String? {
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            let rest = value[value.index(after: close)...]
            guard
                rest.isEmpty
                    || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCII) && Int(rest.dropFirst()) != nil)
            else { return nil }
            return String(value[value.index(after: value.startIndex)..<close])
        }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return value
        case 2: return Int(parts[1]) != nil ? String(parts[0]) : nil
        default: return nil
        }
    }

    /// `localhost` (a trailing dot allowed), an IPv4 address in 127.0.0.0/8, `::1`, or an
    /// IPv4-mapped 127.x address.
    static func isLoopback(_ name: String) -> Bool {
        if name == "localhost" || name == "localhost." { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, name, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
    }

    /// True when `authorization` is `Bearer <token>` (the scheme case-insensitive).
    static func carries(_ token: [UInt8], _ authorization: String?) -> Bool {
        guard let authorization else { return false }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].caseInsensitiveCompare("bearer") == .orderedSame else { return false }
        let given = Array(parts[1].trimmingCharacters(in: .whitespaces).utf8)
        return ConstantTimeComparison.equal(given, token)
    }

    /// The media type of a `Content-Type` value, lowercase, without parameters.
    static func mediaType(_ value: String) -> String {
        String(value.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// An origin as compared: lowercase, without a trailing slash.
    static func normalizedOrigin(_ value: String) -> String {
        var origin = value.trimmingCharacters(in: .whitespaces).lowercased()
        while origin.hasSuffix("/") { origin.removeLast() }
        return origin
    }

    private static func corsHeaders(_ origin: String) -> [HeaderField] {
        [HeaderField(name: "access-control-allow-origin", value: origin), HeaderField(name: "vary", value: "origin")]
    }

    private static let preflightHeaders = [
        HeaderField(name: "access-control-allow-methods", value: "GET, HEAD, POST, PUT, PATCH, DELETE"),
        HeaderField(name: "access-control-allow-headers", value: "authorization, content-type"),
        HeaderField(name: "access-control-max-age", value: "600"),
    ]

    private static func refusal(_ status: Int, _ message: String) -> ControlResponse {
        ControlError(status: status, message: message).response
    }
}
