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

    /// Codes of the strings of each UTF-8 length, so a lookup compares only strings of the
    /// right length.
    private static let codesByLength: [[UInt8]] = {
        let longest = utf8.map(\.count).max() ?? 0
        var table = [[UInt8]](repeating: [], count: longest + 1)
        for (code, bytes) in utf8.enumerated() { table[bytes.count].append(UInt8(code)) }
        return table
    }()

    /// The code of `text`, or `nil` when it is not in the table. Compares bytes: a string that
    /// is only canonically equivalent to an entry is not that entry.
    static func code(of text: String) -> UInt8? {
        var text = text
        return text.withUTF8 { code(ofUTF8: $0) }
    }

    /// The code of the UTF-8 text `bytes`, or `nil`.
    static func code(ofUTF8 bytes: UnsafeBufferPointer<UInt8>) -> UInt8? {
        guard bytes.count < codesByLength.count else { return nil }
        for code in codesByLength[bytes.count] where utf8[Int(code)].elementsEqual(bytes) {
            return code
        }
        return nil
    }
}
