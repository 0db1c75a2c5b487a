import Glibc
import HTTPFields

/// Turns received header fields into Strings, reusing the Strings of the field received at the
/// same position of an earlier header block when the bytes are identical.
///
/// A client sends much the same header block on every request of a connection (the reason HPACK
/// indexes fields), in the same order: topic, push type, user agent, often the path and the
/// `authorization` token. A reused field costs two length checks and `memcmp`s instead of UTF-8
/// validation and, for values over 15 bytes, an allocation; requests and their records then
/// share one copy of each repeated string. A field that differs is made anew (invalid UTF-8
/// repaired to U+FFFD, so a repaired value never equals its raw bytes and is never reused by
/// mistake) and replaces the remembered one at its position.
///
/// One per connection, used on its loop thread only.
struct HeaderFieldInterner {
    /// How many positions are remembered; fields further down a block are always made anew.
    static let positions = 32

    private var recent: [HeaderField] = []

    /// Fields reused rather than made (for tests).
    private(set) var reused = 0

    /// The field at `position` (0 for a block's first field, pseudo-headers included; a caller
    /// may skip positions).
    mutating func field(at position: Int, name: UnsafeBufferPointer<UInt8>,
                        value: UnsafeBufferPointer<UInt8>) -> HeaderField {
        if position < recent.count {
            let remembered = recent[position]
            if HeaderFieldInterner.equal(remembered.value, value) && HeaderFieldInterner.equal(remembered.name, name) {
                reused &+= 1
                return remembered
            }
        }
        let made = HeaderField(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        if position < recent.count {
            recent[position] = made
        } else if position < HeaderFieldInterner.positions {
            // Positions the caller skipped (it makes no Strings of some fields) hold empty fields:
            // those match only an empty name and value, for which they are right.
            while recent.count < position { recent.append(HeaderField(name: "", value: "")) }
            recent.append(made)
        }
        return made
    }

    /// Forgets every remembered field.
    mutating func removeAll() { recent = [] }

    /// Whether `text` is exactly `bytes` in UTF-8.
    @inline(__always)
    static func equal(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == bytes.count else { return false }
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return true }
        return utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, start, bytes.count) == 0 } ?? false
    }
}
