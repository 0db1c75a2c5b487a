/// Reads the pieces `CompactRecordWriter` wrote, front to back, from bytes borrowed for the
/// reader's life (`CompactRecord.withBytes`). The bytes are always the store's own, so a
/// malformed record is a bug: every read is bounds-checked and traps rather than reading
/// outside the record.
struct CompactRecordReader {
    let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    var position: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    mutating func byte() -> UInt8 {
        precondition(position >= 0 && position < bytes.count, "compact record: read past the end")
        defer { position += 1 }
        return bytes[position]
    }

    mutating func fixed64() -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) { value |= UInt64(byte()) << UInt64(shift) }
        return value
    }

    mutating func varint() -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = byte()
            value |= UInt64(b & 0x7F) << shift
            if b < 0x80 { return value }
            shift += 7
        }
    }

    mutating func signed() -> Int64 {
        let raw = varint()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    mutating func count() -> Int { Int(varint()) }

    mutating func blob() -> [UInt8] {
        let n = count()
        precondition(n <= bytes.count - position, "compact record: read past the end")
        defer { position += n }
        return Array(UnsafeBufferPointer(rebasing: bytes[position..<(position + n)]))
    }

    /// Reads a string written by `CompactRecordWriter.string`.
    mutating func string() -> String? {
        let start = position
        skipString()
        return CompactRecordReader.string(in: bytes, at: start)
    }

    /// Moves past a string without building it.
    mutating func skipString() {
        switch byte() {
        case CompactStringTag.absent: break
        case CompactStringTag.inline: position += count()
        case CompactStringTag.table: position += 1
        case CompactStringTag.reference: _ = varint()
        case CompactStringTag.uuidUpper, CompactStringTag.uuidLower: position += 16
        case CompactStringTag.hexUpper, CompactStringTag.hexLower: position += count()
        case CompactStringTag.prefixed:
            position += 1
            skipString()
        case let tag: preconditionFailure("compact record: unknown string tag \(tag)")
        }
    }

    /// The string whose tag is at `position`, following references.
    static func string(in bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> String? {
        var reader = CompactRecordReader(bytes, at: position)
        let tag = reader.byte()
        switch tag {
        case CompactStringTag.absent:
            return nil
        case CompactStringTag.table:
            return CompactStringTable.strings[Int(reader.byte())]
        case CompactStringTag.reference:
            return string(in: bytes, at: position - reader.count())
        case CompactStringTag.inline:
            let n = reader.count()
            precondition(n <= bytes.count - reader.position, "compact record: read past the end")
            return String(
                decoding: UnsafeBufferPointer(rebasing: bytes[reader.position..<(reader.position + n)]), as: UTF8.self)
        default:
            return withUTF8(in: bytes, at: position) { $0.map { String(decoding: $0, as: UTF8.self) } }
        }
    }

    /// Calls `body` with the UTF-8 bytes of the string whose tag is at `position` (following
    /// references), or with `nil` when it is absent. Builds no `String`: UUIDs, hex and
    /// prefixed strings are spelled out in a temporary buffer.
    static func withUTF8<R>(
        in bytes: UnsafeBufferPointer<UInt8>, at position: Int, _ body: (UnsafeBufferPointer<UInt8>?) -> R
    ) -> R {
        var reader = CompactRecordReader(bytes, at: position)
        let tag = reader.byte()
        switch tag {
        case CompactStringTag.absent:
            return body(nil)
        case CompactStringTag.table:
            return CompactStringTable.utf8[Int(reader.byte())].withUnsafeBufferPointer { body($0) }
        case CompactStringTag.reference:
            return withUTF8(in: bytes, at: position - reader.count(), body)
        case CompactStringTag.inline:
            let n = reader.count()
            precondition(n <= bytes.count - reader.position, "compact record: read past the end")
            return body(UnsafeBufferPointer(rebasing: bytes[reader.position..<(reader.position + n)]))
        default:
            let length = spelledLength(in: bytes, at: position)
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(length, 1)) { buffer in
                let written = spell(bytes, at: position, into: buffer, at: 0)
                precondition(written == length, "compact record: string length mismatch")
                return body(UnsafeBufferPointer(rebasing: buffer[0..<length]))
            }
        }
    }

    /// The UTF-8 length of the present string whose tag is at `position`.
    private static func spelledLength(in bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Int {
        var reader = CompactRecordReader(bytes, at: position)
        switch reader.byte() {
        case CompactStringTag.inline: return reader.count()
        case CompactStringTag.table: return CompactStringTable.utf8[Int(reader.byte())].count
        case CompactStringTag.reference: return spelledLength(in: bytes, at: position - reader.count())
        case CompactStringTag.uuidUpper, CompactStringTag.uuidLower: return 36
        case CompactStringTag.hexUpper, CompactStringTag.hexLower: return reader.count() * 2
        case CompactStringTag.prefixed:
            let prefix = CompactStringTable.utf8[Int(reader.byte())].count
            return prefix + spelledLength(in: bytes, at: reader.position)
        case let tag: preconditionFailure("compact record: string tag \(tag) has no text")
        }
    }

    /// Writes the UTF-8 bytes of the present string whose tag is at `position` into `buffer`
    /// from `offset`; returns the offset after them.
    private static func spell(
        _ bytes: UnsafeBufferPointer<UInt8>, at position: Int, into buffer: UnsafeMutableBufferPointer<UInt8>,
        at offset: Int
    ) -> Int {
        var reader = CompactRecordReader(bytes, at: position)
        var offset = offset
        func put(_ c: UInt8) {
            buffer[offset] = c
            offset += 1
        }
        let tag = reader.byte()
        switch tag {
        case CompactStringTag.inline:
            for _ in 0..<reader.count() { put(reader.byte()) }
        case CompactStringTag.table:
            for c in CompactStringTable.utf8[Int(reader.byte())] { put(c) }
        case CompactStringTag.reference:
            offset = spell(bytes, at: position - reader.count(), into: buffer, at: offset)
        case CompactStringTag.uuidUpper, CompactStringTag.uuidLower:
            let digits = tag == CompactStringTag.uuidLower ? lowerDigits : upperDigits
            for i in 0..<16 {
                if i == 4 || i == 6 || i == 8 || i == 10 { put(0x2D) }
                let b = reader.byte()
                put(digits[Int(b >> 4)])
                put(digits[Int(b & 0x0F)])
            }
        case CompactStringTag.hexUpper, CompactStringTag.hexLower:
            let digits = tag == CompactStringTag.hexLower ? lowerDigits : upperDigits
            for _ in 0..<reader.count() {
                let b = reader.byte()
                put(digits[Int(b >> 4)])
                put(digits[Int(b & 0x0F)])
            }
        case CompactStringTag.prefixed:
            for c in CompactStringTable.utf8[Int(reader.byte())] { put(c) }
            offset = spell(bytes, at: reader.position, into: buffer, at: offset)
        default:
            preconditionFailure("compact record: string tag \(tag) has no text")
        }
        return offset
    }

    private static let lowerDigits = Array("0123456789abcdef".utf8)
    private static let upperDigits = Array("0123456789ABCDEF".utf8)
}
