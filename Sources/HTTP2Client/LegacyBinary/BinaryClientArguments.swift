import CommandLineOptions

/// What `mock-apns send --binary` and `mock-apns feedback` share: the TLS options of `mock-apns
/// send` (`--cacert`, `--insecure`, `--cert`, `--cert-key`, `--timeout`) and `HOST:PORT`.
struct BinaryClientArguments {
    /// The TLS options, named as `mock-apns send` names them.
    static let tlsOptions: [OptionScanner.Option] = [
        .init(name: "--cacert", value: "FILE"), .init(name: "--insecure", value: nil),
        .init(name: "--cert", value: "FILE"), .init(name: "--cert-key", value: "FILE"),
        .init(name: "--timeout", value: "SECONDS"),
    ]

    var tls = HTTP2ClientTLSOptions()
    var timeout = 10.0

    /// Reads the TLS options from `values`.
    init(_ values: [String: [String]]) throws(SendUsageError) {
        tls.caCertificatePath = values["--cacert"]?.first
        tls.insecure = values["--insecure"] != nil
        tls.certificatePath = values["--cert"]?.first
        tls.keyPath = values["--cert-key"]?.first
        if tls.keyPath != nil && tls.certificatePath == nil { throw SendUsageError("--cert-key needs --cert") }
        if let text = values["--timeout"]?.first {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0 else {
                throw SendUsageError("--timeout: expected a number of seconds above 0, got '\(text)'")
            }
            timeout = seconds
        }
    }

    /// `HOST:PORT` (IPv6 as `[::1]:2195`) as host and port.
    static func address(_ text: String, option: String) throws(SendUsageError) -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port), colon != text.startIndex
        else {
            throw SendUsageError("\(option): expected HOST:PORT, got '\(text)'")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }
}
