import JSONInput

/// Byte strings a payload must contain to hold a verification's payload values
/// (`DeliveryMatch.payload`, docs/testing.md), to skip decoding records that cannot match.
///
/// A payload written without a backslash spells each key and string value literally, quoted:
/// `aps.alert` = `"never"` needs `"aps"`, `"alert"` and `"never"` in its bytes; `true`,
/// `false` and `null` are spelled as themselves. Only ASCII keys and strings with nothing JSON
/// must escape give needles (Swift compares other strings by canonical equivalence, which
/// bytes cannot), integer segments (array indexes) and numbers give none (`3` equals `3.0`).
/// Bytes holding a backslash may spell any of them escaped: they always pass. The payloads
/// looked at are UTF-8 JSON (RFC 8259), as `JSONNode(decoding:)` reads them.
public struct PayloadNeedles: Sendable, Equatable {
    /// The byte strings every matching payload contains.
    public let needles: [[UInt8]]

    /// The needles of `conditions`.
    public init(_ conditions: [DeliveryMatch.PayloadCondition]) {
        var needles: [[UInt8]] = []
        func add(_ bytes: [UInt8]) { if !needles.contains(bytes) { needles.append(bytes) } }
        for condition in conditions {
            for segment in condition.path.split(separator: ".", omittingEmptySubsequences: false)
            where Int(segment) == nil {
                if let quoted = Self.quoted(String(segment)) { add(quoted) }
            }
            switch condition.value {
            case .string(let text): if let quoted = Self.quoted(text) { add(quoted) }
            case .bool(let value): add(Array((value ? "true" : "false").utf8))
            case .null: add(Array("null".utf8))
            default: break
            }
        }
        self.needles = needles
    }

    /// False when `bytes` (a payload, or any bytes that hold it whole) cannot hold the values:
    /// it has no backslash and misses a needle.
    public func mayMatch(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if needles.isEmpty || bytes.contains(UInt8(ascii: "\\")) { return true }
        return needles.allSatisfy { Self.find($0, in: bytes) }
    }

    /// `text` quoted as JSON writes it without escapes, nil when it is not plain ASCII.
    private static func quoted(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        return [UInt8(ascii: "\"")] + utf8 + [UInt8(ascii: "\"")]
    }

    /// Whether `needle` (not empty) occurs in `bytes`.
    private static func find(_ needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard needle.count <= bytes.count, let first = needle.first else { return needle.isEmpty }
        var i = 0
        let last = bytes.count - needle.count
        while i <= last {
            if bytes[i] == first {
                var j = 1
                while j < needle.count && bytes[i + j] == needle[j] { j += 1 }
                if j == needle.count { return true }
            }
            i += 1
        }
        return false
    }
}
