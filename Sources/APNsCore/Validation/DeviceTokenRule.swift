/// The device-token format rule (docs/apns-behaviour.md §9 "Device token format"; Apple, *Sending
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
            return lowercasedHex(bytes)
        }
    }

    /// `normalized(_:options:)` for the token text's UTF-8 bytes, as the validator and
    /// `PreviousRequest` (target Gateway) read them in the `:path`: concrete and inlinable, so the
    /// memo's call from another module is not an unspecialized generic one.
    @inlinable
    package static func normalized(utf8 bytes: UnsafeBufferPointer<UInt8>, options: ValidationOptions) -> String? {
        let count = bytes.count
        guard count > 0, count & 1 == 0, count <= options.maxTokenLength else { return nil }
        if let exact = options.tokenLength, count != exact { return nil }
        return lowercasedHex(bytes)
    }

    /// `bytes` in lowercase when every byte is a hex digit, else `nil`: checked and lowercased
    /// in one pass, eight bytes at a time (this runs for every push's token).
    @usableFromInline
    package static func lowercasedHex(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let source = bytes.baseAddress.map(UnsafeRawPointer.init) else { return "" }
        let count = bytes.count
        var valid = true
        let text = String(unsafeUninitializedCapacity: count) { buffer in
            let target = UnsafeMutableRawPointer(buffer.baseAddress!)
            var offset = 0
            while offset + 8 <= count {
                let word = source.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                guard let lowered = lowercasedHexWord(word) else {
                    valid = false
                    return 0
                }
                target.storeBytes(of: lowered, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < count {
                let byte = bytes[offset]
                guard HeaderRules.isHexDigit(byte) else {
                    valid = false
                    return 0
                }
                buffer[offset] = byte | 0x20  // digits already have 0x20 set; letters become lowercase
                offset += 1
            }
            return count
        }
        return valid ? text : nil
    }

    /// Eight bytes lowercased when each is `0`-`9`, `a`-`f` or `A`-`F`, else `nil`. Every byte is
    /// first checked to be ASCII, so adding a constant below 0x80 to a byte never carries into
    /// the next: the top bit of each byte of `x + (0x80 - low)` then says `x >= low`.
    static func lowercasedHexWord(_ word: UInt64) -> UInt64? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        guard word & high == 0 else { return nil }
        let lowered = word | (0x20 &* ones)  // A-F become a-f; digits keep their 0x20 bit
        let digit = (word &+ (0x80 - 0x30) &* ones) & ~(word &+ (0x7F - 0x39) &* ones) & high  // '0'...'9'
        // 'a'...'f' after lowering
        let letter = (lowered &+ (0x80 - 0x61) &* ones) & ~(lowered &+ (0x7F - 0x66) &* ones) & high
        return digit | letter == high ? lowered : nil
    }

    /// ASCII letters folded to lowercase, other bytes kept: a malformed token is recorded this
    /// way so the record's `deviceToken` is lowercase whatever arrived.
    static func recordForm<S: StringProtocol>(_ token: S) -> String {
        UTF8Bytes.with(token) { asciiLowercased($0) }
    }

    /// `recordForm(_:)` of the token text's UTF-8 bytes.
    static func recordForm(utf8 bytes: UnsafeBufferPointer<UInt8>) -> String {
        asciiLowercased(bytes)
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
