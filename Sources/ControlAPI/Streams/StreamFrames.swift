/// The bytes of a live stream, for either `StreamFormat` (README "Live stream"). A record's
/// JSON is the same as `GET /v1/deliveries` or `GET /v1/events` renders it: one line, since
/// JSON escapes every newline inside strings.
///
/// | message | SSE | NDJSON line |
/// |---|---|---|
/// | record | `event: delivery` (or `event`), `id: <seq>`, `data: <record>` | `<record>` |
/// | heartbeat | `: heartbeat` | `{"heartbeat":true,"lastSeq":N}` |
/// | gap | `event: gap`, `id: <to>`, `data: {"from","to","reason"}` | `{"gap":true,"from","to","reason"}` |
/// | cutoff | `event: cutoff`, `data: {"cutoff":true,"lastSeq","reason"}` | the same object |
/// | end | `event: end`, `data: {"end":true,"lastSeq","reason"}` | the same object |
public enum StreamFrames {
    /// The `event:` name of a record of the deliveries stream.
    public static let deliveryEvent = "delivery"
    /// The `event:` name of a record of the events stream.
    public static let connectionEvent = "event"

    /// What comes before a record's JSON: `event: <name>\nid: <seq>\ndata: ` in SSE, nothing in NDJSON.
    public static func recordOpening(_ format: StreamFormat, event: String, seq: UInt64) -> [UInt8] {
        switch format {
        case .sse: return Array("event: \(event)\nid: \(seq)\ndata: ".utf8)
        case .ndjson: return []
        }
    }

    /// What comes after a record's JSON: a blank line in SSE, a newline in NDJSON.
    public static func recordClosing(_ format: StreamFormat) -> [UInt8] {
        switch format {
        case .sse: return Array("\n\n".utf8)
        case .ndjson: return [0x0A]
        }
    }

    /// A whole record message: `json` (one line) framed for `format`.
    public static func record(_ format: StreamFormat, event: String, seq: UInt64, json: [UInt8]) -> [UInt8] {
        recordOpening(format, event: event, seq: seq) + json + recordClosing(format)
    }

    /// A heartbeat, sent every `ControlStream.heartbeatSeconds` so proxies keep the stream
    /// open: an SSE comment (which `EventSource` ignores), or an NDJSON line naming `lastSeq`,
    /// the position scanned so far.
    public static func heartbeat(_ format: StreamFormat, lastSeq: UInt64) -> [UInt8] {
        switch format {
        case .sse: return Array(": heartbeat\n\n".utf8)
        case .ndjson: return Array("{\"heartbeat\":true,\"lastSeq\":\(lastSeq)}\n".utf8)
        }
    }

    /// Records `range` were no longer stored (evicted by a full ring, or cleared) when the stream
    /// came to send them; whether they matched the stream's filters is not known. The SSE `id`
    /// is the range's end, so a reconnect with `Last-Event-ID` resumes after it.
    public static func gap(_ format: StreamFormat, _ range: ClosedRange<UInt64>) -> [UInt8] {
        let body =
            "\"from\":\(range.lowerBound),\"to\":\(range.upperBound),\"reason\":\"evicted or cleared before it was sent\""
        switch format {
        case .sse: return Array("event: gap\nid: \(range.upperBound)\ndata: {\"gap\":true,\(body)}\n\n".utf8)
        case .ndjson: return Array("{\"gap\":true,\(body)}\n".utf8)
        }
    }

    /// The last message of a stream whose consumer read too slowly: every matching record up to
    /// `lastSeq` was sent, so a reconnect with `after=lastSeq` resumes with no gap.
    public static func cutoff(_ format: StreamFormat, lastSeq: UInt64) -> [UInt8] {
        final(format, event: "cutoff", json: "{\"cutoff\":true,\"lastSeq\":\(lastSeq),\"reason\":\"slow consumer\"}")
    }

    /// The last message of a stream the server ends: it is stopping, or the stream's isolated
    /// gateway was deleted (`reason` says which).
    public static func end(_ format: StreamFormat, lastSeq: UInt64, reason: String = "server stopping") -> [UInt8] {
        // `reason` is one of ours ("server stopping", "gateway deleted"): no JSON escaping needed.
        final(format, event: "end", json: "{\"end\":true,\"lastSeq\":\(lastSeq),\"reason\":\"\(reason)\"}")
    }

    private static func final(_ format: StreamFormat, event: String, json: String) -> [UInt8] {
        switch format {
        case .sse: return Array("event: \(event)\ndata: \(json)\n\n".utf8)
        case .ndjson: return Array("\(json)\n".utf8)
        }
    }
}
