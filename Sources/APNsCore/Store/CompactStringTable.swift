import Foundation

/// Strings that recur in nearly every delivery record (header names, methods, push types,
/// listener and identity words, path prefixes), stored in a compact record as a one-byte code
/// instead of their text. The table exists only in memory, so it may change between builds;
/// a string not in it is stored as written.
enum CompactStringTable {
    /// The strings, indexed by code. At most 256.
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
    static let devicePathPrefix: UInt8 = code(of: "/3/device/")!

    /// UTF-8 bytes of each string, by code.
    static let utf8: [[UInt8]] = strings.map { Array($0.utf8) }

    /// Codes of known header names, which `CompactRecord` looks for.
    static let apnsTopic = code(of: "apns-topic")!
    static let apnsPushType = code(of: "apns-push-type")!
    static let apnsCollapseID = code(of: "apns-collapse-id")!
    static let apnsID = code(of: "apns-id")!

    /// The lookup structure, built once: one global to reach per lookup.
    private static let index = Index(utf8)

    /// Every string's bytes back to back and where each starts: one buffer to compare against,
    /// no array per string; and the codes of each length, so a lookup compares only strings
    /// of the right length (most strings written are longer than any here, and rejected at once).
    private final class Index: Sendable {
        let flat: [UInt8]
        let starts: [Int]
        /// `codes[firstOfLength[n]..<firstOfLength[n + 1]]` are the codes of the strings of n bytes.
        let codes: [UInt8]
        let firstOfLength: [Int]

        init(_ utf8: [[UInt8]]) {
            flat = utf8.flatMap { $0 }
            starts = utf8.reduce(into: [0]) { $0.append($0.last! + $1.count) }
            let longest = utf8.map(\.count).max() ?? 0
            var codes: [UInt8] = []
            var firstOfLength: [Int] = []
            for length in 0...(longest + 1) {
                firstOfLength.append(codes.count)
                for (code, bytes) in utf8.enumerated() where bytes.count == length { codes.append(UInt8(code)) }
            }
            self.codes = codes
            self.firstOfLength = firstOfLength
        }

        func code(of bytes: UnsafeBufferPointer<UInt8>) -> UInt8? {
            guard bytes.count > 0, bytes.count + 1 < firstOfLength.count else { return nil }
            return flat.withUnsafeBufferPointer { flat in
                let first = bytes[0]
                for i in firstOfLength[bytes.count]..<firstOfLength[bytes.count + 1] {
                    let code = codes[i]
                    let start = starts[Int(code)]
                    // The first byte rules out most candidates without a call.
                    if flat[start] == first, memcmp(flat.baseAddress! + start, bytes.baseAddress!, bytes.count) == 0 {
                        return code
                    }
                }
                return nil
            }
        }
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
