import JSONSupport

/// How a live stream (`GET /v1/deliveries/stream`, `GET /v1/events/stream`) frames its records
/// (README "Live stream").
public enum StreamFormat: String, Sendable, Equatable {
    /// Server-Sent Events (`text/event-stream`): each record an `event:`, `id: <seq>` and
    /// `data: <JSON>` block ended by a blank line; heartbeats are `:` comments.
    case sse
    /// Newline-delimited JSON (`application/x-ndjson`): each record one JSON object on its own
    /// line; the stream's own messages are objects with a `heartbeat`, `gap`, `cutoff` or `end`
    /// member (records have none of these keys).
    case ndjson

    /// The `content-type` of the stream's answer.
    public var contentType: String {
        switch self {
        case .sse: return "text/event-stream"
        case .ndjson: return "application/x-ndjson"
        }
    }

    /// The format a request asks for: the `format` query parameter (`sse` or `ndjson`) when
    /// given, else NDJSON when `accept` names `application/x-ndjson`, else SSE.
    /// - Throws: a 400 `ControlError` for another `format` value.
    public static func requested(format: String?, accept: String?) throws(ControlError) -> StreamFormat {
        if let format {
            guard let chosen = StreamFormat(rawValue: format) else {
                throw .badRequest("format must be sse or ndjson, got '\(format)'")
            }
            return chosen
        }
        if let accept, accept.lowercased().contains("application/x-ndjson") { return .ndjson }
        return .sse
    }
}
