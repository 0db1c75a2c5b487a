import Foundation

/// APNs's `{"reason":"<reason>"}`, the one encoder of it: the body of every error response
/// (`{"reason":"Unregistered","timestamp":1700000000123}` on 410, docs/apns-behaviour.md §2) and
/// the debug data of every GOAWAY APNs sends (docs/apns-behaviour.md §5, §6; docs/field-cases.md
/// C1, C2): certificate rejections, `goaway` fault rules, `POST /v1/connections/{id}/goaway`, the
/// idle timeout and the shutdown all take theirs from here.
public enum ReasonJSON {
    /// `{"reason":"<text>"}` (with `,"timestamp":N` when `timestamp` is given) as UTF-8 bytes,
    /// `text` JSON-escaped as `JSONSerialization` escapes it (quotes, backslashes, control
    /// characters); `/` is not escaped.
    public static func bytes(_ text: String, timestamp: Int64? = nil) -> [UInt8] {
        // APNs reasons (letters only) need no escaping: spelled directly.
        if text.utf8.allSatisfy(isPlain) { return spelled(text, timestamp: timestamp) }
        var object: [String: Any] = ["reason": text]
        if let timestamp { object["timestamp"] = timestamp }
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes, .sortedKeys]))
            ?? Data()
        return Array(data)
    }

    /// `{"reason":"<reason>"}` (with `,"timestamp":N` when given), e.g.
    /// `{"reason":"BadCertificateEnvironment"}`. Reasons are ASCII letters: spelled without an
    /// escaping check (the per-push path of every error answer).
    public static func bytes(_ reason: Reason, timestamp: Int64? = nil) -> [UInt8] {
        spelled(reason.rawValue, timestamp: timestamp)
    }

    private static func spelled(_ text: String, timestamp: Int64?) -> [UInt8] {
        var json = #"{"reason":""# + text + "\""
        if let timestamp { json += #","timestamp":"# + String(timestamp) }
        json += "}"
        return Array(json.utf8)
    }

    /// ASCII letters, digits, space, `.`, `-` and `_`: bytes JSON never escapes.
    static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x20, 0x2E, 0x2D, 0x5F: return true
        default: return false
        }
    }
}
