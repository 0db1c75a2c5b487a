import Foundation

/// Strings that recur in nearly every delivery record (header names, methods, push types,
/// listener and identity words, path prefixes), stored in a compact record as a one-byte code
/// instead of their text. The table exists only in memory, so it may change between builds;
/// a string not in it is stored as written.
enum CompactStringTable {
    /// The strings, indexed by code. At most 255 (`Index` keeps code + 1 in a byte).
    static let strings: [String] = [
        // Request header names (HTTP/2: lowercase).
        "apns-topic", "apns-push-type", "apns-id", "apns-expiration", "apns-priority", "apns-collapse-id",
        "authorization", "content-length", "content-type", "user-agent", "accept", "accept-encoding",
        "te", "host", "connection", "cache-control",
        // Methods.
        "POST", "GET", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH",
        // Push types (`apns-push-type` values), priorities, content type.
        "alert", "background", "voip", "complication", "fileprovider", "mdm", "location",
        "liveactivity", "pushtotalk", "widgets", "controls",
        "10", "5", "1", "0", "application/json",
        // Listener names and environments.
        "default", "sandbox", "production",
        // Credential identity kinds and verdicts.
        "none", "token", "certificate", "unchecked", "no-token", "verified", "unknown-key-accepted",
        "certificate-authenticated",
        // Fault action types.
        "respond", "delay", "noResponse", "resetStream", "goaway", "close", "reset", "settings",
        "withholdWindowUpdate", "sickConnection", "sequence", "rateLimit",
        // Prefixes (see `CompactRecord`'s prefixed strings).
        "/3/device/", "bearer ",
    ]

    /// The code of `/3/device/`, the prefix of every APNs `:path`.
    ///
    /// This code and the header-name codes below are literals, not looked up: the encoder reads
    /// them for every header of every push, and a literal needs no lazy initialization check.
    /// A test keeps them in step with `strings`.
    static let devicePathPrefix: UInt8 = 62

    /// UTF-8 bytes of each string, by code.
    static let utf8: [[UInt8]] = strings.map { Array($0.utf8) }

    /// Codes of known header names, which `CompactRecord` looks for.
    static let apnsTopic: UInt8 = 0
    static let apnsPushType: UInt8 = 1
    static let apnsCollapseID: UInt8 = 5
    static let apnsID: UInt8 = 2

    /// The lookup structure, built once: one global to reach per lookup.
    private static let index = Index(utf8)

    /// An open-addressing hash table over the strings, in memory allocated once for the life of
    /// the process: every string's bytes back to back, where each starts, and 256 slots holding
    /// code + 1 (0: empty), hashed by length and first and last byte. A lookup is a few
    /// arithmetic steps and, for a likely match, one `memcmp`; no array bounds checks or
    /// reference counting on the request path (this runs for every string of every record).
    private struct Index: @unchecked Sendable {
        /// The longest string's length: longer text (tokens, UUIDs...) is rejected at once.
        let longest: Int
        private let flat: UnsafePointer<UInt8>
        /// `starts[code]..<starts[code + 1]` is the string's range in `flat`.
        private let starts: UnsafePointer<Int>
        private let slots: UnsafePointer<UInt8>

        init(_ utf8: [[UInt8]]) {
            precondition(utf8.count < 256, "CompactStringTable: at most 255 strings")
            let all = utf8.flatMap { $0 }
            let flat = UnsafeMutablePointer<UInt8>.allocate(capacity: max(all.count, 1))
            flat.initialize(from: all, count: all.count)
            let starts = UnsafeMutablePointer<Int>.allocate(capacity: utf8.count + 1)
            starts.initialize(to: 0)
            for (code, bytes) in utf8.enumerated() { starts[code + 1] = starts[code] + bytes.count }
            let slots = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
            slots.initialize(repeating: 0, count: 256)
            for (code, bytes) in utf8.enumerated() where !bytes.isEmpty {
                var slot = bytes.withUnsafeBufferPointer { Index.slot(of: $0) }
                while slots[slot] != 0 { slot = (slot + 1) & 0xFF }
                slots[slot] = UInt8(code + 1)
            }
            longest = utf8.map(\.count).max() ?? 0
            self.flat = UnsafePointer(flat)
            self.starts = UnsafePointer(starts)
            self.slots = UnsafePointer(slots)
        }

        /// Where a lookup of `bytes` (non-empty) starts.
        @inline(__always)
        private static func slot(of bytes: UnsafeBufferPointer<UInt8>) -> Int {
            let base = bytes.baseAddress!
            return (bytes.count &* 97 &+ Int(base[0]) &* 31 &+ Int(base[bytes.count - 1])) & 0xFF
        }

        func code(of bytes: UnsafeBufferPointer<UInt8>) -> UInt8? {
            let count = bytes.count
            guard count > 0, count <= longest else { return nil }
            var slot = Index.slot(of: bytes)
            while true {
                let entry = slots[slot]
                if entry == 0 { return nil }
                let code = Int(entry) - 1
                let start = starts[code]
                if starts[code + 1] - start == count, memcmp(flat + start, bytes.baseAddress!, count) == 0 {
                    return UInt8(truncatingIfNeeded: code)
                }
                slot = (slot + 1) & 0xFF
            }
        }

        /// The bytes of the string with code `code`, valid for the life of the process.
        func bytes(of code: UInt8) -> UnsafeBufferPointer<UInt8> {
            let start = starts[Int(code)]
            return UnsafeBufferPointer(start: flat + start, count: starts[Int(code) + 1] - start)
        }
    }

    /// The UTF-8 bytes of the string with `code` (a valid code), without copying; valid for
    /// the life of the process.
    static func bytes(of code: UInt8) -> UnsafeBufferPointer<UInt8> {
        index.bytes(of: code)
    }

    /// The code of `text`, or `nil` when it is not in the table. Compares bytes: a string that
    /// is only canonically equivalent to an entry is not that entry.
    static func code(of text: String) -> UInt8? {
        var text = text
        return text.withUTF8 { code(ofUTF8: $0) }
    }

    /// The code of the UTF-8 text `bytes`, or `nil`.
    static func code(ofUTF8 bytes: UnsafeBufferPointer<UInt8>) -> UInt8? {
        index.code(of: bytes)
    }
}
