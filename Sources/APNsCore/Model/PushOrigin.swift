/// Where a request arrived: which listener and which connection and stream.
public struct PushOrigin: Sendable, Hashable {
    /// Process-unique connection id, counting from 1 in order of acceptance.
    public var id: UInt64
    /// The listener's name from the configuration (e.g. `sandbox`).
    public var listener: String
    /// The listener's environment.
    public var environment: APNsEnvironment
    /// The peer address as `host:port`.
    public var peer: String

    public init(id: UInt64, listener: String, environment: APNsEnvironment, peer: String) {
        self.id = id
        self.listener = listener
        self.environment = environment
        self.peer = peer
    }
}
