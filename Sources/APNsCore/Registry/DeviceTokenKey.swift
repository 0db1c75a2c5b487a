/// A device token as a hash table's key: the registry's (`DeviceRegistry`) and the virtual
/// devices' (`DeviceBook`), both looked up on the push path of every push to a known token.
///
/// Equality is the token's. The hash reads the length and the first and last 8 bytes of the
/// UTF-8, mixed into one word, not all 64 or more: SipHash over a whole token was about 800
/// instructions a lookup, and real tokens are random, so those bytes already tell them apart
/// (tokens alike at both ends still work, equality separates them; only the table gets slower).
/// Shorter tokens are hashed whole. Keys are expected lowercase, as `DeviceTokenRule` normalizes them.
public struct DeviceTokenKey: Hashable, Sendable {
    /// The token, as given.
    public var token: String

    public init(_ token: String) { self.token = token }

    public static func == (lhs: DeviceTokenKey, rhs: DeviceTokenKey) -> Bool { lhs.token == rhs.token }

    public func hash(into hasher: inout Hasher) {
        // A native token's bytes are read in place: no mutable copy of the String for `withUTF8`.
        if let word = token.utf8.withContiguousStorageIfAvailable(Self.mixedEnds) ?? nil {
            hasher.combine(word)
            return
        }
        var token = token
        token.withUTF8 { bytes in
            if let word = Self.mixedEnds(bytes) {
                hasher.combine(word)
            } else {
                hasher.combine(bytes.count)
                hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
            }
        }
    }

    /// The length and the first and last 8 bytes of a token of 16 bytes or more, mixed into one
    /// word (one SipHash round for the hasher instead of three); nil for a shorter token.
    static func mixedEnds(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard bytes.count >= 16, let base = bytes.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        let first = raw.loadUnaligned(as: UInt64.self)
        let last = raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
        return first ^ (last << 29 | last >> 35) ^ (UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15)
    }
}
