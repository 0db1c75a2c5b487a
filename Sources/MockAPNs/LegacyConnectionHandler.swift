import Configuration
import ControlAPI
import HTTP2Transport

/// A handler of legacy connections (`BinaryGatewayHandler`, `FeedbackService`) as
/// `GET /v1/connections` lists them and its close and reset commands act on them
/// (docs/legacy-binary.md §8). Called on the byte-stream server's loop thread only.
protocol LegacyConnectionHandler: ByteStreamHandler {
    /// The listener it serves.
    var listener: BinaryListenerConfiguration { get }
    /// `connection` as listed: `protocol` `binary` or `feedback`, its certificate, topic and counts.
    func entry(of connection: ByteStreamConnection) -> ConnectionListEntry
    /// Closes `connection` for a control-API command: FIN, or TCP RST when `reset`; its `closed`
    /// event names the reason `command`.
    func close(_ connection: ByteStreamConnection, reset: Bool)
}
