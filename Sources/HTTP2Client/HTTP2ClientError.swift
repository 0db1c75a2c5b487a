/// Why a connection could not be made or a request got no response.
public enum HTTP2ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not `https://host[:port]` or `http://host[:port]`.
    case invalidURL(String, reason: String)
    /// The host name did not resolve (getaddrinfo's message).
    case cannotResolve(host: String, reason: String)
    /// Nothing listens at host:port (TCP RST on connect).
    case connectionRefused(host: String, port: Int)
    /// TCP connect failed otherwise (strerror's message).
    case connectFailed(host: String, port: Int, reason: String)
    /// Nothing happened for the given number of seconds while doing `what`.
    case timedOut(what: String, seconds: Double)
    /// A CA file, client certificate or key could not be loaded (OpenSSL's message).
    case tlsSetup(String)
    /// The client key file (the certificate file itself when no separate key file was given)
    /// holds no PEM private key.
    case clientKeyMissing(path: String, inCertificateFile: Bool)
    /// The server's certificate did not verify (OpenSSL's verify message, e.g. "unable to get
    /// local issuer certificate" or "hostname mismatch").
    case tlsVerificationFailed(String)
    /// The TLS handshake or a later TLS record failed (OpenSSL's message, e.g. an alert).
    case tlsFailed(String)
    /// The server selected another ALPN protocol than `h2`, or none (nil).
    case alpnNotH2(String?)
    /// The server did not answer the connection preface with HTTP/2 SETTINGS.
    case notHTTP2(String)
    /// The server sent GOAWAY before this request could be processed.
    case goAway(HTTP2GoAway)
    /// The server closed the connection.
    case connectionClosed
    /// Reading or writing the socket failed (strerror's message).
    case io(String)
    /// nghttp2 reported a protocol violation (its message).
    case protocolError(String)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): return "invalid URL '\(url)': \(reason)"
        case .cannotResolve(let host, let reason): return "cannot resolve \(host): \(reason)"
        case .connectionRefused(let host, let port):
            return "connection refused by \(HTTP2Endpoint.authority(host, port))"
        case .connectFailed(let host, let port, let reason):
            return "cannot connect to \(HTTP2Endpoint.authority(host, port)): \(reason)"
        case .timedOut(let what, let seconds): return "timed out after \(Self.seconds(seconds)) s \(what)"
        case .tlsSetup(let message): return message
        case .clientKeyMissing(let path, let inCertificateFile):
            return inCertificateFile
                ? "the client certificate file \(path) holds no private key, and no key file was given"
                : "the client key file \(path) holds no private key"
        case .tlsVerificationFailed(let message): return "TLS certificate verification failed: \(message)"
        case .tlsFailed(let message): return "TLS failed: \(message)"
        case .alpnNotH2(let selected):
            return "the server did not select HTTP/2 with ALPN (selected: \(selected.map { "'\($0)'" } ?? "none"))"
        case .notHTTP2(let message): return "the server does not speak HTTP/2: \(message)"
        case .goAway(let goAway): return "the server sent \(goAway)"
        case .connectionClosed: return "the server closed the connection"
        case .io(let message): return "socket error: \(message)"
        case .protocolError(let message): return "HTTP/2 protocol error: \(message)"
        }
    }

    /// `10` rather than `10.0`, `0.5` as is.
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
