import APNsCore

/// The live server facts the control API reports but does not own (`GET /v1/health`,
/// `GET /v1/stats`); the server assembly supplies them through a closure at each request.
public struct ControlStatus: Sendable, Equatable {
    /// One APNs listener as bound.
    public struct Listener: Sendable, Equatable {
        /// The listener's name from the configuration (e.g. `sandbox`).
        public var name: String
        /// The bound address as `host:port` (the real port when configured as 0).
        public var address: String
        /// The environment it serves.
        public var environment: APNsEnvironment
        /// The PEM certificate it serves (TLS listeners; nil for plaintext): what a test client
        /// attached to a running server trusts when it has no CA file (the ready file's
        /// `certificate`, docs/testing.md).
        public var certificate: String?
        /// Its provider-token checks, the configuration's spelling (`none`, `permissive`,
        /// `strict`); nil leaves it out of `/v1/health`.
        public var auth: String?
        /// Whether it asks TLS clients for a certificate (`clientCAs` configured): certificate
        /// authentication is possible there; nil leaves it out of `/v1/health`.
        public var clientCertificates: Bool?

        /// Memberwise initializer.
        public init(
            name: String, address: String, environment: APNsEnvironment, certificate: String? = nil,
            auth: String? = nil, clientCertificates: Bool? = nil
        ) {
            self.name = name
            self.address = address
            self.environment = environment
            self.certificate = certificate
            self.auth = auth
            self.clientCertificates = clientCertificates
        }
    }

    /// The MockAPNs version string.
    public var version: String
    /// Milliseconds since the server started.
    public var uptimeMilliseconds: Int64
    /// APNs (HTTP/2) connections currently open, over all listeners.
    public var connectionsOpen: Int
    /// The APNs listeners, in configuration order.
    public var listeners: [Listener]
    /// Event-loop threads serving APNs connections (`--workers`, or the automatic count).
    public var workers: Int
    /// The process's open-file soft limit (`RLIMIT_NOFILE`, raised to the hard limit at start), in
    /// descriptors; 0 when unknown (README "Limits and known gaps").
    public var openFileLimit: Int
    /// Descriptors the process holds now (the entries of `/proc/self/fd`); 0 when unknown.
    public var openFiles: Int

    /// Memberwise initializer.
    public init(
        version: String, uptimeMilliseconds: Int64, connectionsOpen: Int, listeners: [Listener], workers: Int,
        openFileLimit: Int = 0, openFiles: Int = 0
    ) {
        self.version = version
        self.uptimeMilliseconds = uptimeMilliseconds
        self.connectionsOpen = connectionsOpen
        self.listeners = listeners
        self.workers = workers
        self.openFileLimit = openFileLimit
        self.openFiles = openFiles
    }
}
