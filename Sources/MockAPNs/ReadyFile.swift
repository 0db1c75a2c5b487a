import Foundation

/// The `--ready-file` document (README "Running in containers and from any language"): where a
/// started server listens, as JSON, for a test in any language that started it with port 0.
///
/// Shape (keys sorted; stable: keys may be added, none removed or changed):
/// `{"control":{"host","port","url"} or null,"listeners":[{"certificate"?,"environment","host","name","port","tls","url"}],"pid","version"}`.
/// Written once every listener and the control API listen, atomically: a temporary file in the
/// same directory, then `rename(2)`, so a reader polling for the file never sees half of it.
public struct ReadyFile: Encodable, Sendable, Equatable {
    /// One APNs listener as bound.
    public struct Listener: Encodable, Sendable, Equatable {
        public var name: String
        /// `sandbox` or `production`.
        public var environment: String
        public var host: String
        /// The bound port (the real one when configured as 0).
        public var port: Int
        /// `https://host:port`, or `http://` for a cleartext listener.
        public var url: String
        /// Whether it serves TLS.
        public var tls: Bool
        /// The PEM text of the certificate it serves (the ephemeral self-signed one when no
        /// `--tls-cert` was given), for a client that started the server to trust; absent for a
        /// cleartext listener.
        public var certificate: String?

        /// Memberwise initializer.
        public init(
            name: String, environment: String, host: String, port: Int, url: String, tls: Bool,
            certificate: String? = nil
        ) {
            self.name = name
            self.environment = environment
            self.host = host
            self.port = port
            self.url = url
            self.tls = tls
            self.certificate = certificate
        }
    }

    /// The control API as bound.
    public struct Control: Encodable, Sendable, Equatable {
        public var host: String
        public var port: Int
        /// Its base URL, e.g. `http://127.0.0.1:8197`.
        public var url: String

        /// Memberwise initializer.
        public init(host: String, port: Int, url: String) {
            self.host = host
            self.port = port
            self.url = url
        }
    }

    /// The MockAPNs version.
    public var version: String
    /// The server's process id.
    public var pid: Int32
    /// The APNs listeners in configuration order.
    public var listeners: [Listener]
    /// The control API; nil (`null`) when it is off.
    public var control: Control?

    /// The document for `server`, started.
    public init(server: MockAPNsServer, pid: Int32 = getpid()) {
        version = MockAPNsVersion.string
        self.pid = pid
        listeners = server.listeners.enumerated().map { index, listener in
            Listener(
                name: listener.name, environment: listener.environment.rawValue, host: listener.host,
                port: listener.port, url: listener.url, tls: listener.tls,
                certificate: listener.tls ? server.certificatePEM(listener: index) : nil)
        }
        if let port = server.controlPort, let url = server.controlURL {
            control = Control(host: server.configuration.control?.host ?? "", port: port, url: url)
        }
    }

    /// Memberwise initializer.
    public init(version: String, pid: Int32, listeners: [Listener], control: Control?) {
        self.version = version
        self.pid = pid
        self.listeners = listeners
        self.control = control
    }

    private enum CodingKeys: String, CodingKey {
        case version, pid, listeners, control
    }

    /// Writes `control` as `null` when absent, rather than leaving the key out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(pid, forKey: .pid)
        try container.encode(listeners, forKey: .listeners)
        try container.encode(control, forKey: .control)
    }

    /// The document as JSON, keys sorted, with a final newline.
    public func json() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, numbers and booleans only: encoding cannot fail.
        return Array((try? encoder.encode(self)) ?? Data()) + [0x0A]
    }

    /// Writes `json()` to `path` atomically: to `path.tmp-PID` in the same directory, flushed,
    /// then renamed over `path`.
    /// - Throws: `ReadyFileError` naming the path and the system's reason.
    public func write(to path: String) throws(ReadyFileError) {
        let temporary = "\(path).tmp-\(getpid())"
        let bytes = json()
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ReadyFileError(path: temporary, reason: String(cString: strerror(errno))) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                throw ReadyFileError(path: temporary, reason: reason)
            }
            written += n
        }
        fsync(fd)
        close(fd)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ReadyFileError(path: path, reason: reason)
        }
    }
}

/// Why the ready file could not be written.
public struct ReadyFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file that could not be written or renamed into place.
    public var path: String
    /// The system's message, e.g. "No such file or directory".
    public var reason: String

    public var description: String { "cannot write the ready file \(path): \(reason)" }
}
