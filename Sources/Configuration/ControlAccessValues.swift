import JSONInput

/// The checks of the control API's allowed names and origins, shared by the command line and
/// the configuration file (README "Security").
enum ControlAccessValues {
    /// Why `name` cannot be an allowed `Host` name (a host name or IP address without port,
    /// IPv6 without brackets, or `*`); nil when it can.
    static func hostProblem(_ name: String) -> String? {
        if name == "*" { return nil }
        if let problem = HostPort.hostProblem(name) {
            return "expected a host name or IP address without port, or *, got \(InputError.quoted(name)) (\(problem))"
        }
        return nil
    }

    /// Why `origin` cannot be an allowed origin (`http://` or `https://`, a host, an optional
    /// port, no path); nil when it can.
    static func originProblem(_ origin: String) -> String? {
        let expected = "expected an origin such as http://localhost:3000, got \(InputError.quoted(origin))"
        let lower = origin.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lower.hasPrefix($0) }) else { return expected }
        let authority = lower.dropFirst(scheme.count)
        guard !authority.isEmpty,
            authority.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_:[]".contains($0)) })
        else { return expected }
        return nil
    }
}
