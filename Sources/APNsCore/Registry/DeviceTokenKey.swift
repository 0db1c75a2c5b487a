/// A device token as a hash table's key: the registry's (`DeviceRegistry`) and the virtual
/// devices' (`DeviceBook`), both looked up on the push path of every push to a known token.
///
/// Equality is the token's. The hash reads the length and the first and last 8 bytes of the
/// UTF-8, not all 64 or more: SipHash over a whole token was about 800 instructions a lookup,
/// and real tokens are random, so those bytes already tell them apart (tokens alike at both
/// ends still work, equality separates them; only the table gets slower). Shorter tokens are
/// hashed whole. Keys are expected lowercase, as `DeviceTokenRule` normalizes them.
public struct DeviceTokenKey: Hashable, Sendable {
    /// The token, as given.
    public var token: String

    public init(_ token: String) { self.token = token }

    public static func == (lhs: DeviceTokenKey, rhs: DeviceTokenKey) -> Bool { lhs.token == rhs.token }

    public func hash(into hasher: inout Hasher) {
        var token = token
        token.withUTF8 { bytes in
            hasher.combine(bytes.count)
            guard bytes.count >= 16, let base = bytes.baseAddress else {
                hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
                return
            }
            let raw = UnsafeRawPointer(base)
            hasher.combine(raw.loadUnaligned(as: UInt64.self))
            hasher.combine(raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
        }
    }
}
