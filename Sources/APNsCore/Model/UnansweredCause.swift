/// Why a push's stream ended without response HEADERS: the sender got no status, and its
/// record says so (`DeliveryRecord.unanswered`, `"status": null`; issue 13, docs/field-cases.md
/// "Streams that end unanswered"). The raw values are the record's JSON strings.
public enum UnansweredCause: String, Sendable, Hashable, CaseIterable {
    /// The server closed the connection (FIN) with the stream still open.
    case connectionClosed = "connection-closed"
    /// The server reset the connection (TCP RST) with the stream still open.
    case connectionReset = "connection-reset"
    /// The client closed or reset the connection (or the socket failed) with the stream still open.
    case connectionClosedByClient = "connection-closed-by-client"
    /// The stream's id is above the last-stream-id of a GOAWAY the server sent: the server never
    /// processed it, and a correct sender retries it (RFC 9113 section 6.8).
    case aboveLastStreamID = "above-last-stream-id"
    /// The client sent RST_STREAM before the answer.
    case streamResetByClient = "stream-reset-by-client"
    /// The server sent RST_STREAM instead of an answer (a `resetStream` fault, or nghttp2 on a
    /// stream error).
    case streamResetByServer = "stream-reset-by-server"

    /// The cause's position in `allCases` (how the compact record stores it).
    public var index: Int { UnansweredCause.allCases.firstIndex(of: self)! }

    /// The cause at `index` in `allCases`; nil out of range.
    public init?(index: Int) {
        guard UnansweredCause.allCases.indices.contains(index) else { return nil }
        self = UnansweredCause.allCases[index]
    }
}
