/// Parsers for the APNs request header values (docs/apns-behaviour.md §1.2; Apple, *Sending notification
/// requests to APNs*). Each returns `nil` for a value APNs rejects. They read the UTF-8 bytes
/// directly: no regexes, no Foundation scanning.
enum HeaderRules {
    /// `apns-id`: a canonical UUID, 32 hex digits as 8-4-4-4-12 with hyphens. Apple's generated
    /// IDs are uppercase while clients send lowercase, so either case is accepted (docs/apns-behaviour.md §9).
    /// Invalid → 400 `BadMessageId`.
    static func isCanonicalUUID(_ value: String) -> Bool {
        guard value.utf8.count == 36 else { return false }
        return UTF8Bytes.with(value) { bytes in
            for offset in 0..<36 {
                let byte = bytes[offset]
                switch offset {
                case 8, 13, 18, 23:
                    if byte != UInt8(ascii: "-") { return false }
                default:
                    if !isHexDigit(byte) { return false }
                }
            }
            return true
        }
    }

    /// `apns-expiration`: non-negative integer Unix epoch seconds; `0` means "deliver once, do
    /// not store". Anything else (sign, fraction, exponent, spaces, empty, beyond `Int64`) →
    /// 400 `BadExpirationDate` (docs/apns-behaviour.md §9, after parse-server#4558 and L5).
    static func expiration(_ value: String) -> Int64? {
        decimal(value, maxDigits: 19)
    }

    /// `apns-priority`: 10, 5 or 1 (Apple; L2 `DeliveryPriority`). Decimal digits only, so `05`
    /// is 5 as in pushy (`Integer.parseInt`); anything else → 400 `BadPriority`.
    static func priority(_ value: String) -> Int? {
        guard let number = decimal(value, maxDigits: 4) else { return nil }
        switch number {
        case 10, 5, 1: return Int(number)
        default: return nil
        }
    }

    /// `apns-push-type`: one of the 11 values Apple lists, exactly as written (lowercase, as in
    /// pushy's `PushType`); anything else → 400 `InvalidPushType`.
    static func pushType(_ value: String) -> PushType? {
        PushType(rawValue: value)
    }

    /// `apns-collapse-id`: at most 64 bytes of UTF-8 (Apple; L1 counts UTF-8 bytes);
    /// longer → 400 `BadCollapseId`.
    static func isValidCollapseID(_ value: String) -> Bool {
        value.utf8.count <= 64
    }

    /// The value as an unsigned decimal of 1...`maxDigits` ASCII digits, or `nil`.
    private static func decimal(_ value: String, maxDigits: Int) -> Int64? {
        let count = value.utf8.count
        guard count > 0, count <= maxDigits else { return nil }
        return UTF8Bytes.with(value) { bytes in
            var result: Int64 = 0
            for byte in bytes {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                let (times10, o1) = result.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times10.addingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
                if o1 || o2 { return nil }
                result = sum
            }
            return result
        }
    }

    @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }
}
