/// Contiguous UTF-8 access for the byte-level rules. Iterating `String.UTF8View` generically
/// checks the string's representation at every step; a buffer pointer does not, which makes the
/// header and token rules several times faster. Native Swift strings (everything the transport
/// builds) are contiguous; anything else is copied once.
enum UTF8Bytes {
    /// Calls `body` with the UTF-8 bytes of `text`.
    @inline(__always)
    static func with<Text: StringProtocol, R>(_ text: Text, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = String(text)
        return copy.withUTF8(body)
    }

    /// Whether `bytes` ends with `suffix`, the suffix being strictly shorter.
    @inline(__always)
    static func hasProperSuffix(_ bytes: UnsafeBufferPointer<UInt8>, _ suffix: [UInt8]) -> Bool {
        let n = suffix.count
        guard bytes.count > n else { return false }
        return suffix.withUnsafeBufferPointer { s in
            UnsafeBufferPointer(rebasing: bytes[(bytes.count - n)...]).elementsEqual(s)
        }
    }
}
