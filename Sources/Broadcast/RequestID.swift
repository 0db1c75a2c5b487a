/// The `apns-request-id` of a channel or broadcast request (Apple, *Sending channel management
/// requests to APNs*; docs/broadcast.md §A3): a canonical UUID, 8-4-4-4-12 hex digits.
///
/// Decision: Apple asks for lowercase; uppercase is accepted too (as for `apns-id`) and echoed
/// as sent; anything else → 400 `BadMessageId`. The broadcast token sample sends `apns-id`
/// instead: either header is read (`apns-request-id` first) and the answer carries
/// `apns-request-id`. Absent → a new lowercase UUID.
public enum RequestID {
    /// The request-ID header names read, in order of preference.
    public static let headerNames = ["apns-request-id", "apns-id"]

    /// Whether `value` is a canonical UUID (either letter case).
    public static func isCanonical(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count == 36 else { return false }
        for (offset, byte) in bytes.enumerated() {
            switch offset {
            case 8, 13, 18, 23:
                if byte != UInt8(ascii: "-") { return false }
            default:
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                    UInt8(ascii: "A")...UInt8(ascii: "F"):
                    break
                default:
                    return false
                }
            }
        }
        return true
    }
}
