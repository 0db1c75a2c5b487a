import Glibc

/// Contiguous UTF-8 access for the byte-level rules. Iterating `String.UTF8View` generically
/// checks the string's representation at every step; a buffer pointer does not, which makes the
/// header and token rules several times faster. Native Swift strings (everything the transport
/// builds) are contiguous; anything else is copied once.
// Inlinable across the targets (package + @usableFromInline): `PreviousRequest` (target Gateway)
// compares every repeated push with these; as plain cross-module calls the generic ones ran
// unspecialized (measured with bench/callgrind.sh when the targets were split: bench/README.md).
@usableFromInline
package enum UTF8Bytes {
    /// Whether `a` and `b` hold the same UTF-8 bytes. Unlike `==`, which treats canonically
    /// equivalent text as equal (`é` precomposed and decomposed, `K` and the Kelvin sign), this
    /// tells apart what a client sent differently: a memo or filter must not merge them.
    @inlinable @inline(__always)
    package static func equal<A: StringProtocol, B: StringProtocol>(_ a: A, _ b: B) -> Bool {
        with(a) { x in with(b) { y in equal(x, y) } }
    }

    /// `equal` for APNsAuth's token caches: concrete, so a call from another module needs no
    /// generic specialization.
    /// Strings that are the very same value (see `identical`) are equal at once.
    @inlinable @inline(__always)
    package static func equal(_ a: String, _ b: String) -> Bool {
        identical(a, b) || with(a) { x in with(b) { y in equal(x, y) } }
    }

    /// Whether `a` and `b` are the same string value bit for bit: the same storage object (the
    /// transport's interned header strings, a memo's own reference), or the same small string,
    /// whose bits are its bytes. Either way their bytes are equal. Cheaper than reaching the
    /// bytes of a small string; false says nothing.
    @inlinable @inline(__always)
    package static func identical(_ a: String, _ b: String) -> Bool {
        guard MemoryLayout<String>.size == 16 else { return false }
        let x = unsafeBitCast(a, to: (UInt64, UInt64).self), y = unsafeBitCast(b, to: (UInt64, UInt64).self)
        return x.0 == y.0 && x.1 == y.1
    }

    @inlinable
    package static func equal(_ a: String, _ b: Substring) -> Bool {
        with(a) { x in with(b) { y in equal(x, y) } }
    }

    /// Byte equality of two arrays (request bodies), as for text.
    @inlinable @inline(__always)
    package static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in equal(x, y) } }
    }

    /// One `memcmp`; shared storage compares equal at once.
    @inlinable @inline(__always)
    package static func equal(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        x.count == y.count
            && (x.count == 0 || x.baseAddress == y.baseAddress
                || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
    }

    /// `equal` for optionals: both nil, or both present with the same bytes.
    @inlinable @inline(__always)
    package static func equal(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (x?, y?): return equal(x, y)
        default: return false
        }
    }

    /// `equal` over header lists, name and value by name and value.
    /// Reads the fields in place: on the request path for every push (`PreviousRequest`), where
    /// copying each field out would cost a retain and a release per string.
    @inlinable
    package static func equal(_ a: [HeaderField], _ b: [HeaderField]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                // One list twice (the transport hands a repeated header block's list on as is).
                if x.baseAddress == y.baseAddress { return true }
                for i in 0..<x.count where !(equal(x[i].name, y[i].name) && equal(x[i].value, y[i].value)) {
                    return false
                }
                return true
            }
        }
    }

    /// Calls `body` with the UTF-8 bytes of `text`.
    @inlinable @inline(__always)
    package static func with<Text: StringProtocol, R>(_ text: Text, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = String(text)
        return copy.withUTF8(body)
    }

    /// Whether `bytes` ends with `suffix`, the suffix being strictly shorter. The last bytes are
    /// compared first: most topics end in a byte no suffix ends in.
    @inlinable @inline(__always)
    package static func hasProperSuffix(_ bytes: UnsafeBufferPointer<UInt8>, _ suffix: [UInt8]) -> Bool {
        let n = suffix.count
        guard bytes.count > n else { return false }
        return suffix.withUnsafeBufferPointer { s in
            n == 0
                || (bytes[bytes.count - 1] == s[n - 1]
                    && memcmp(bytes.baseAddress! + (bytes.count - n), s.baseAddress!, n) == 0)
        }
    }
}
