import HTTPFields

/// Formats the answer to one request, a line per fact:
/// `status 400`, `apns-id: …`, `apns-unique-id: …`, `reason: BadDeviceToken`, `timestamp: …`.
public enum SendReport {
    /// The most characters of a non-APNs error body shown.
    static let bodyExcerptLength = 200

    /// The lines for `result`, then a `goaway:` line when the server sent GOAWAY; with
    /// `showsBody`, a 2xx answer's body too (`body: ...`: a channel read or list).
    public static func lines(for result: HTTP2ClientResult, goAway: HTTP2GoAway?, showsBody: Bool = false) -> [String] {
        var lines: [String] = []
        switch result.outcome {
        case .response(let response):
            lines.append("status \(response.status)")
            for name in ["apns-id", "apns-unique-id", "apns-request-id", "apns-channel-id"] {
                if let value = response.header(name) { lines.append("\(name): \(value)") }
            }
            if response.status / 100 == 2 {
                // A channel read or list answers a body (`showsBody`); a push's 200 body is ignored.
                // Whole: a list's IDs are the point of asking.
                if showsBody && !response.body.isEmpty {
                    lines.append("body: \(excerpt(response.body, limit: Int.max))")
                }
            } else {
                if let error = APNsErrorBody(body: response.body) {
                    lines.append("reason: \(error.reason)")
                    if let timestamp = error.timestamp {
                        lines.append("timestamp: \(timestamp)" + (error.timestampISO8601.map { " (\($0))" } ?? ""))
                    }
                } else if !response.body.isEmpty {
                    lines.append("body: \(excerpt(response.body))")
                }
            }
        case .streamReset(let code):
            lines.append("stream reset: \(code.hexDescription)")
        case .failed(let error):
            lines.append("no response: \(failureText(error))")
        }
        if let goAway { lines.append(goAwayLine(goAway)) }
        return lines
    }

    /// `goaway: CODE (0xN), last stream N, debug data "…"`.
    static func goAwayLine(_ goAway: HTTP2GoAway) -> String {
        var line = "goaway: \(goAway.errorCode.hexDescription), last stream \(goAway.lastStreamID)"
        if !goAway.debugData.isEmpty { line += ", debug data \"\(goAway.debugText)\"" }
        return line
    }

    /// Why a request got no answer; GOAWAY itself gets its own line.
    static func failureText(_ error: HTTP2ClientError) -> String {
        if case .goAway = error { return "not processed: the server sent GOAWAY" }
        return error.description
    }

    /// The body as one line of text, shortened.
    private static func excerpt(_ body: [UInt8], limit: Int = bodyExcerptLength) -> String {
        let text = String(decoding: body, as: UTF8.self)
            .map { $0.isNewline || $0 == "\t" ? " " : $0 }
        let line = String(text).trimmingCharacters()
        return line.count > limit ? String(line.prefix(limit)) + "…" : line
    }
}

private extension String {
    /// Without leading and trailing spaces.
    func trimmingCharacters() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
