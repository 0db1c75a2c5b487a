import Foundation

/// The base64 of channel IDs (RFC 4648 §4, standard alphabet, padded): Foundation's coder, and
/// the rule of what a well-formed `apns-channel-id` is (docs/broadcast.md §A3).
enum Base64 {
    /// The longest `apns-channel-id` accepted, in characters; longer → `BadChannelId`.
    /// Decision: Apple says not to assume a size and publishes none; 128 characters (96 bytes)
    /// is four times the IDs this mock issues and well above Apple's example (20).
    static let maxChannelIDLength = 128

    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Whether `text` is a well-formed channel ID: non-empty standard base64 with its padding,
    /// at most `maxChannelIDLength` characters, decoding to at least one byte.
    static func isChannelID(_ text: String) -> Bool {
        let count = text.utf8.count
        guard count > 0, count <= maxChannelIDLength, !text.hasPrefix("="), let data = Data(base64Encoded: text)
        else { return false }
        return !data.isEmpty
    }
}
