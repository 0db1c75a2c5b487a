/// The device-token format rule (spec section 9 "Device token format"; Apple, *Sending
/// notification requests to APNs*: "don't make assumptions about device token size").
///
/// A token is non-empty, even-length hexadecimal in either case (uppercase gets 200 from APNs:
/// sideshow/apns2#102), at most `ValidationOptions.maxTokenLength` characters (default 200), and
/// exactly `ValidationOptions.tokenLength` characters when that is set. 64-, 108- and 160-character
/// tokens all pass by default. Anything else is 400 `BadDeviceToken`, e.g. the iOS 13
/// `{length=32,bytes=0x3c5e...}` description or `<abcd ef>`, whether percent-encoded or not.
/// Valid tokens are stored and looked up in lowercase.
public enum DeviceTokenRule {
    /// The token in lowercase hexadecimal when it passes the rule, else `nil`.
    ///
    /// - Parameters:
    ///   - token: the token text as written (e.g. the `:path` segment after `/3/device/`).
    ///   - options: supplies `tokenLength` (exact hex-character count, or `nil` for any) and
    ///     `maxTokenLength` (largest hex-character count).
    public static func normalized<S: StringProtocol>(_ token: S, options: ValidationOptions) -> String? {
        UTF8Bytes.with(token) { bytes in
            let count = bytes.count
            guard count > 0, count & 1 == 0, count <= options.maxTokenLength else { return nil }
            if let exact = options.tokenLength, count != exact { return nil }
            for byte in bytes where !HeaderRules.isHexDigit(byte) { return nil }
            return asciiLowercased(bytes)
        }
    }

    /// ASCII letters folded to lowercase, other bytes kept: a malformed token is recorded this
    /// way so the record's `deviceToken` is lowercase whatever arrived.
    static func recordForm<S: StringProtocol>(_ token: S) -> String {
        UTF8Bytes.with(token) { asciiLowercased($0) }
    }

    /// One pass, one allocation. Folding only ASCII letters keeps multi-byte UTF-8 intact.
    private static func asciiLowercased(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for i in 0..<bytes.count {
                let byte = bytes[i]
                buffer[i] = (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }
}
