/// The SETTINGS a listener sends first on every connection.
///
/// Defaults are what Apple's servers were observed to send (docs/apns-behaviour.md §6, pushy #878, 2021):
/// HEADER_TABLE_SIZE 4096, MAX_CONCURRENT_STREAMS 1000, INITIAL_WINDOW_SIZE 65535,
/// MAX_FRAME_SIZE 16384, MAX_HEADER_LIST_SIZE 8000.
public struct HTTP2Settings: Sendable, Equatable {
    /// HPACK dynamic table size in bytes.
    public var headerTableSize: UInt32 = 4096
    /// Streams the client may have open at once.
    public var maxConcurrentStreams: UInt32 = 1000
    /// Stream flow-control window in bytes.
    public var initialWindowSize: UInt32 = 65535
    /// Largest frame payload in bytes.
    public var maxFrameSize: UInt32 = 16384
    /// Largest header list in bytes (RFC 9113 section 6.5.2 accounting).
    public var maxHeaderListSize: UInt32 = 8000

    /// How many bytes of a request body are kept; the rest is counted and dropped, so a huge
    /// body costs no memory (APNs's largest payload is 5120 bytes). Not a SETTINGS value.
    public var maxStoredBodyBytes = 16 * 1024
    /// Seconds a TLS client has to finish its handshake before the connection is closed, so
    /// silent or stalled clients cannot hold descriptors for good. Not a SETTINGS value.
    public var handshakeTimeout = 10.0
    /// Seconds without a completed request after which the connection ends; nil: never.
    public var idleTimeout: Double?
    /// How an idle connection ends: GOAWAY NO_ERROR with this debug data, then close; nil: a
    /// TCP reset.
    public var idleGoAwayDebugData: [UInt8]?
    /// When true an idle connection is blackholed instead (`HTTP2Connection.blackhole`): it
    /// stays open and answers nothing more; `idleGoAwayDebugData` is then not used.
    public var idleBlackhole = false

    public init(maxConcurrentStreams: UInt32 = 1000) {
        self.maxConcurrentStreams = maxConcurrentStreams
    }
}
