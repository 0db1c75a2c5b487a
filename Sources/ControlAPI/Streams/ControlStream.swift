import Recording

/// A live stream the control API opened (`ControlResult.stream`): `GET /v1/deliveries/stream`
/// or `GET /v1/events/stream`. The HTTP adapter keeps it (a value) and passes it `inout` to
/// `ControlAPI.streamMessages(_:limit:)` whenever the stores may have changed; the messages it
/// returns are written to the consumer as they come (README "Live stream").
public struct ControlStream: Sendable {
    /// Which records the stream sends.
    public enum Source: Sendable, Equatable {
        /// Delivery records matching the filter (its `after` is the starting position).
        case deliveries(DeliveryFilter)
        /// Connection events matching the filter (its `after` is the starting position).
        case events(ConnectionEventFilter)
    }

    /// Seconds between heartbeats on a stream with nothing else to send: 15, so proxies that
    /// close silent connections after 30 or 60 seconds keep it open.
    public static let heartbeatSeconds = 15.0
    /// The most records one call of `ControlAPI.streamMessages` renders: the rest follow at
    /// the next call, so one stream never holds the control loop for long.
    public static let batchLimit = 1_000

    /// Which records the stream sends.
    public let source: Source
    /// How they are framed.
    public let format: StreamFormat
    /// How far the stream has got.
    public internal(set) var position: StreamPosition
    /// The store's `generation` at the last call: unchanged, and no batch left over, means
    /// nothing to do (the long polls' check).
    var seenGeneration: UInt64 = .max
    /// True when the last call stopped at `batchLimit` with more matching records to send.
    public internal(set) var hasMore = false

    /// A stream of `source` in `format` from `position`.
    public init(source: Source, format: StreamFormat, position: StreamPosition) {
        self.source = source
        self.format = format
        self.position = position
    }

    /// The `event:` name of the stream's records (`StreamFrames`).
    public var recordEvent: String {
        switch source {
        case .deliveries: return StreamFrames.deliveryEvent
        case .events: return StreamFrames.connectionEvent
        }
    }
}
