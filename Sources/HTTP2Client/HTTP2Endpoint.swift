/// Where to connect, parsed from `https://host[:port][/]` or `http://host[:port][/]`.
public struct HTTP2Endpoint: Sendable, Equatable, CustomStringConvertible {
    /// True for `https` (TLS with ALPN h2), false for `http` (cleartext, HTTP/2 prior knowledge).
    public var secure: Bool
    /// The host name or address, without brackets for IPv6.
    public var host: String
    /// The TCP port; 443 or 80 when the URL has none.
    public var port: Int

    /// Creates an endpoint from parts.
    public init(secure: Bool, host: String, port: Int) {
        self.secure = secure
        self.host = host
        self.port = port
    }

    /// Parses a URL; a path other than `/`, a query, a fragment or user info is refused.
    public init(url: String) throws(HTTP2ClientError) {
        func invalid(_ reason: String) -> HTTP2ClientError { .invalidURL(url, reason: reason) }
        let lower = url.lowercased()
        var rest: Substring
        if lower.hasPrefix("https://") {
            secure = true
            rest = url.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            secure = false
            rest = url.dropFirst(7)
        } else {
            throw invalid("expected https://HOST[:PORT] or http://HOST[:PORT]")
        }
        if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            guard rest[slash...] == "/" else {
                throw invalid("expected no path, query or fragment after the host and port")
            }
            rest = rest[..<slash]
        }
        guard !rest.contains("@") else { throw invalid("user info is not supported") }
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw invalid("missing ']' after the IPv6 address") }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("expected ':PORT' after ']'") }
                portText = after.dropFirst()
            }
        } else {
            let colons = rest.filter { $0 == ":" }.count
            guard colons <= 1 else { throw invalid("put an IPv6 address in brackets, e.g. https://[::1]:2197") }
            if let colon = rest.firstIndex(of: ":") {
                host = String(rest[..<colon])
                portText = rest[rest.index(after: colon)...]
            } else {
                host = String(rest)
            }
        }
        guard !host.isEmpty else { throw invalid("the host is empty") }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw invalid("the port must be a number from 1 to 65535, got '\(portText)'")
            }
            self.port = port
        } else {
            port = secure ? 443 : 80
        }
    }

    /// The `:authority` to send: the host (IPv6 in brackets), with `:port` unless it is the
    /// scheme's default.
    public var authority: String {
        let isDefault = port == (secure ? 443 : 80)
        return isDefault ? Self.bracketed(host) : Self.authority(host, port)
    }

    /// `https://host:port` with the port always shown.
    public var description: String { (secure ? "https://" : "http://") + Self.authority(host, port) }

    /// `host:port`, IPv6 in brackets.
    static func authority(_ host: String, _ port: Int) -> String { "\(bracketed(host)):\(port)" }

    private static func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}
