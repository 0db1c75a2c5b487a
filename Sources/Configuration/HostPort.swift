import JSONInput
import JSONSupport

/// A bind address, `host:port`, as written in flags and config files: IPv6 hosts go in
/// brackets (`[::1]:2197`) because their colons would make the port ambiguous.
struct HostPort: Sendable, Equatable, CustomStringConvertible {
    var host: String
    var port: Int

    /// How to write an address, for error messages.
    static let syntax = "HOST:PORT (IPv6 as [::1]:2197)"

    /// Why a text is not a usable address.
    struct Problem: Error, Equatable {
        var hint: String
    }

    /// `host:port`, bracketing IPv6 hosts.
    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Parses `HOST:PORT` or `[IPV6]:PORT`; the port must be 0 to 65535.
    static func parse(_ text: String) throws(Problem) -> HostPort {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw Problem(hint: "missing ']' after the IPv6 address")
            }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw Problem(hint: "missing :PORT after ']'") }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw Problem(hint: "missing :PORT") }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") { throw Problem(hint: "put IPv6 addresses in brackets, e.g. [::1]:2197") }
        }
        if let problem = hostProblem(String(host)) { throw Problem(hint: problem) }
        guard let port = parsePort(portText) else {
            throw Problem(hint: "the port must be an integer from 0 to 65535")
        }
        return HostPort(host: String(host), port: port)
    }

    /// A port written as 1 to 5 decimal digits, at most 65535.
    static func parsePort(_ text: Substring) -> Int? {
        guard (1...5).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(text), ConfigurationLimits.port.contains(port)
        else { return nil }
        return port
    }

    /// Why `host` cannot be bound, or `nil` when it looks like a host name or IP literal.
    /// Resolution is left to the server; this only catches typos such as spaces or a scheme.
    static func hostProblem(_ host: String) -> String? {
        if host.isEmpty { return "the host is empty" }
        for character in host {
            let allowed = character.isASCII && (character.isLetter || character.isNumber || ".-_:%".contains(character))
            if !allowed { return "invalid character \(InputError.quoted(String(character))) in the host" }
        }
        return nil
    }

    /// A host as written in a `host` field: IPv6 may come with or without brackets.
    static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2 ? String(host.dropFirst().dropLast()) : host
    }

    /// Whether binding both addresses would fail: the same non-zero port on the same host, or
    /// on a wildcard address that covers the other (`0.0.0.0` covers IPv4 and names; `::` all).
    func conflicts(with other: HostPort) -> Bool {
        guard port != 0, port == other.port else { return false }
        // localhost binds the loopback addresses: the same sockets as 127.0.0.1 and ::1.
        func canonical(_ host: String) -> [String] {
            let lower = host.lowercased()
            return lower == "localhost" ? ["127.0.0.1", "::1"] : [lower == "[::1]" ? "::1" : lower]
        }
        if canonical(host).contains(where: { a in canonical(other.host).contains(a) }) { return true }
        let a = host.lowercased()
        let b = other.host.lowercased()
        if a == b || a == "::" || b == "::" { return true }
        if a == "0.0.0.0" { return !b.contains(":") }
        if b == "0.0.0.0" { return !a.contains(":") }
        return false
    }
}
