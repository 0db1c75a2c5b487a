import Foundation

/// The debug data APNs puts in a GOAWAY frame: `{"reason":"<reason>"}` (docs/apns-behaviour.md §5,
/// §6; docs/field-cases.md C1, C2). The one builder of it: certificate rejections, `goaway` fault
/// rules, `POST /v1/connections/{id}/goaway`, the idle timeout and the shutdown all take theirs
/// from here.
public enum GoawayDebugData {
    /// The most debug data one GOAWAY frame carries, in bytes: a frame's payload is at most the
    /// 16,384 bytes every HTTP/2 peer accepts (SETTINGS_MAX_FRAME_SIZE's initial value, RFC 9113
    /// §4.2), of which the last-stream-id and the error code take 8. Longer debug data is refused
    /// where it is given (fault rules, `POST /v1/connections/{id}/goaway`), never cut or dropped.
    public static let maxBytes = 16_384 - 8

    /// nil when `bytes` fit in one GOAWAY frame, else why not (for an error message naming the field).
    public static func problem(_ bytes: [UInt8]) -> String? {
        guard bytes.count > maxBytes else { return nil }
        return "the GOAWAY debug data would be \(bytes.count) bytes; one frame carries at most \(maxBytes)"
    }

    /// `{"reason":"<text>"}` as UTF-8 bytes, `text` JSON-escaped as `JSONSerialization` escapes
    /// it (quotes, backslashes, control characters); `/` is not escaped.
    public static func reason(_ text: String) -> [UInt8] {
        // APNs reasons (letters only) need no escaping: spelled directly.
        if text.utf8.allSatisfy(isPlain) { return Array((#"{"reason":""# + text + #""}"#).utf8) }
        let data =
            (try? JSONSerialization.data(withJSONObject: ["reason": text], options: [.withoutEscapingSlashes]))
            ?? Data()
        return Array(data)
    }

    /// `{"reason":"<reason>"}`, e.g. `{"reason":"BadCertificateEnvironment"}`.
    public static func reason(_ reason: Reason) -> [UInt8] { self.reason(reason.rawValue) }

    /// ASCII letters, digits, space, `.`, `-` and `_`: bytes JSON never escapes.
    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x20, 0x2E, 0x2D, 0x5F: return true
        default: return false
        }
    }
}
