import Foundation

/// The debug data APNs puts in a GOAWAY frame: `{"reason":"<reason>"}` (docs/apns-behaviour.md §5,
/// §6; docs/field-cases.md C1, C2). The one builder of it: certificate rejections, `goaway` fault
/// rules, `POST /v1/connections/{id}/goaway`, the idle timeout and the shutdown all take theirs
/// from here.
public enum GoawayDebugData {
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
