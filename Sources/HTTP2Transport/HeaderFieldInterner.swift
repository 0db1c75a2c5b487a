import Glibc
import HTTPFields

/// Turns received header fields into Strings, reusing the Strings of the field received at the
/// same position of an earlier header block when the bytes are identical.
///
/// A client sends much the same header block on every request of a connection (the reason HPACK
/// indexes fields), in the same order: topic, push type, user agent, often the path and the
/// `authorization` token. A reused field costs two length checks and byte comparisons instead
/// of UTF-8 validation and, for values over 15 bytes, an allocation; requests and their records
/// then share one copy of each repeated string. A field that differs is made anew (invalid UTF-8
/// repaired to U+FFFD, so a repaired value never equals its raw bytes and is never reused by
/// mistake) and replaces the remembered one at its position. The remembered Strings' bytes are
/// kept beside them and compared in place: no String is read to find that a field repeats.
///
/// One per connection, used on its loop thread only.
final class HeaderFieldInterner {
    /// How many positions are remembered; fields further down a block are always made anew.
    static let positions = 32

    /// One remembered field: its Strings, and their UTF-8 bytes (name then value) in `bytes`.
    private struct Remembered {
        var field = HeaderField(name: "", value: "")
        var bytes: UnsafeMutablePointer<UInt8>?
        var capacity = 0
        var nameLength = 0
        var valueLength = 0
    }

    /// `positions` entries. Positions not filled yet, or skipped by the caller (it makes no
    /// Strings of some fields), hold the empty field: that matches only an empty name and
    /// value, for which it is right.
    private let recent: UnsafeMutablePointer<Remembered>

    /// A number that changes whenever a remembered regular field is replaced: a caller holding
    /// regular (not pseudo-) fields it got earlier knows they are still the remembered ones while
    /// it is unchanged. A pseudo-header's value replaced by another value of the same
    /// pseudo-header (a new `:path`, another device token, on nearly every push of a sender
    /// notifying many devices) does not change it: that position held no regular field before
    /// or after, and a regular field never matches a pseudo-header's bytes (its name has no `:`),
    /// so every regular field held is still the one remembered at its position.
    @exclusivity(unchecked) private(set) var changes: UInt64 = 0

    /// Fields reused rather than made (for tests).
    @exclusivity(unchecked) private(set) var reused = 0

    init() {
        recent = .allocate(capacity: HeaderFieldInterner.positions)
        recent.initialize(repeating: Remembered(), count: HeaderFieldInterner.positions)
    }

    deinit {
        for index in 0..<HeaderFieldInterner.positions { recent[index].bytes?.deallocate() }
        recent.deinitialize(count: HeaderFieldInterner.positions)
        recent.deallocate()
    }

    /// The field at `position` (0 for a block's first field, pseudo-headers included; a caller
    /// may skip positions).
    @inline(__always)
    func field(at position: Int, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> HeaderField {
        if repeats(at: position, name: name, value: value) {
            reused &+= 1
            return recent[position].field
        }
        return makeField(at: position, name: name, value: value)
    }

    /// The value of `field(at:name:value:)`, without its name: the name's String is neither
    /// copied nor released (a pseudo-header keeps only its value).
    @inline(__always)
    func value(at position: Int, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> String {
        if repeats(at: position, name: name, value: value) {
            reused &+= 1
            return recent[position].field.value
        }
        return makeField(at: position, name: name, value: value).value
    }

    /// Whether `name` and `value` have the bytes of the field remembered at `position` (which
    /// `field(at:)` would then return); changes nothing.
    @inline(__always)
    func repeats(at position: Int, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard position < HeaderFieldInterner.positions else { return false }
        let slot = recent + position
        return slot.pointee.nameLength == name.count && slot.pointee.valueLength == value.count
            && HeaderFieldInterner.same(slot.pointee.bytes, name.baseAddress, name.count)
            && HeaderFieldInterner.same(slot.pointee.bytes.map { $0 + name.count }, value.baseAddress, value.count)
    }

    /// A field not remembered at `position`: made, and remembered there.
    @inline(never)
    private func makeField(at position: Int, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>)
        -> HeaderField
    {
        guard position < HeaderFieldInterner.positions else {
            return HeaderFieldInterner.make(name: name, value: value)
        }
        let slot = recent + position
        // The same name with another value (a new `:path`, `content-length`): the name's String is reused.
        let sameName =
            slot.pointee.nameLength == name.count
            && HeaderFieldInterner.same(slot.pointee.bytes, name.baseAddress, name.count)
        let made = HeaderField(
            name: sameName ? slot.pointee.field.name : String(decoding: name, as: UTF8.self),
            value: String(decoding: value, as: UTF8.self))
        if sameName && HeaderFieldInterner.isASCII(value) {
            // The name's bytes are remembered already, and an ASCII value is its String's bytes
            // exactly (nothing repaired): copy the received bytes, not the Strings' (a new
            // `:path`, on nearly every push of a sender notifying many devices).
            HeaderFieldInterner.remember(made, value: value, in: slot)
        } else {
            HeaderFieldInterner.remember(made, in: slot)
        }
        if !(sameName && name.count > 0 && name[0] == UInt8(ascii: ":")) { changes &+= 1 }
        return made
    }

    /// Forgets every remembered field.
    func removeAll() {
        changes &+= 1
        for index in 0..<HeaderFieldInterner.positions {
            recent[index].field = HeaderField(name: "", value: "")
            recent[index].nameLength = 0
            recent[index].valueLength = 0
        }
    }

    private static func make(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) -> HeaderField {
        HeaderField(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    /// Stores `field` and the bytes of its Strings (not those received: a repaired value must
    /// not match the invalid bytes it came from).
    private static func remember(_ field: HeaderField, in slot: UnsafeMutablePointer<Remembered>) {
        var name = field.name, value = field.value
        name.withUTF8 { name in
            value.withUTF8 { value in
                let nameLength = name.count, valueLength = value.count
                if slot.pointee.capacity < nameLength + valueLength {
                    slot.pointee.bytes?.deallocate()
                    slot.pointee.capacity = max(nameLength + valueLength, 32)
                    slot.pointee.bytes = .allocate(capacity: slot.pointee.capacity)
                }
                if let bytes = slot.pointee.bytes {
                    if let source = name.baseAddress { bytes.update(from: source, count: nameLength) }
                    if let source = value.baseAddress { (bytes + nameLength).update(from: source, count: valueLength) }
                }
                slot.pointee.nameLength = nameLength
                slot.pointee.valueLength = valueLength
            }
        }
        slot.pointee.field = field
    }

    /// Stores `field`, whose name's bytes the slot holds already and whose value's bytes are
    /// `value` (ASCII, so its String's bytes exactly).
    private static func remember(
        _ field: HeaderField, value: UnsafeBufferPointer<UInt8>, in slot: UnsafeMutablePointer<Remembered>
    ) {
        let nameLength = slot.pointee.nameLength, valueLength = value.count
        if slot.pointee.capacity < nameLength + valueLength {
            let capacity = max(nameLength + valueLength, 32)
            let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            if let old = slot.pointee.bytes {
                bytes.update(from: old, count: nameLength)
                old.deallocate()
            }
            slot.pointee.bytes = bytes
            slot.pointee.capacity = capacity
        }
        if let bytes = slot.pointee.bytes, let source = value.baseAddress {
            (bytes + nameLength).update(from: source, count: valueLength)
        }
        slot.pointee.valueLength = valueLength
        slot.pointee.field = field
    }

    /// Whether every byte of `bytes` is ASCII (eight at a time).
    @inline(__always)
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress.map(UnsafeRawPointer.init) else { return true }
        var index = 0
        let count = bytes.count
        while index + 8 <= count {
            if base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < count {
            if bytes[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }

    /// Whether the `count` bytes at `a` and `b` are equal (true when `count` is 0). Runs up to
    /// 32 bytes are compared here in a few loads (the last one overlapping the one before); a
    /// call to `memcmp` costs more than that.
    @inline(__always)
    private static func same(_ a: UnsafePointer<UInt8>?, _ b: UnsafePointer<UInt8>?, _ count: Int) -> Bool {
        guard count > 0 else { return true }
        guard let a = UnsafeRawPointer(a), let b = UnsafeRawPointer(b) else { return false }
        if count > 32 { return memcmp(a, b, count) == 0 }
        if count >= 8 {
            var offset = 0
            while offset + 8 < count {
                if load(UInt64.self, a, offset) != load(UInt64.self, b, offset) { return false }
                offset += 8
            }
            return load(UInt64.self, a, count - 8) == load(UInt64.self, b, count - 8)
        }
        if count >= 4 {
            return load(UInt32.self, a, 0) == load(UInt32.self, b, 0)
                && load(UInt32.self, a, count - 4) == load(UInt32.self, b, count - 4)
        }
        return load(UInt8.self, a, 0) == load(UInt8.self, b, 0)
            && load(UInt8.self, a, count / 2) == load(UInt8.self, b, count / 2)
            && load(UInt8.self, a, count - 1) == load(UInt8.self, b, count - 1)
    }

    @inline(__always)
    private static func load<T: FixedWidthInteger>(_ type: T.Type, _ base: UnsafeRawPointer, _ offset: Int) -> T {
        base.loadUnaligned(fromByteOffset: offset, as: T.self)
    }
}
