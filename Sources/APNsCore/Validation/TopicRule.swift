/// The `apns-topic` rules: what a plausible topic looks like, and which push types a topic's
/// suffix allows (docs/apns-behaviour.md §1.2, §1.3, §9 "Push type incompatible with the topic suffix").
public enum TopicRule {
    /// Whether `topic` is a plausible topic; otherwise 400 `BadTopic`.
    ///
    /// Decision (docs/apns-behaviour.md §9; Apple does not publish the rule): 1 to 255 bytes of ASCII
    /// letters, digits, `.`, `-` and `_`, neither starting nor ending with `.` and with no `..`.
    /// That covers bundle IDs (Apple allows letters, digits, `-` and `.`; `_` is kept for
    /// legacy IDs), the push-type suffixes (`.push-type.liveactivity`...), pass type IDs
    /// (`pass.com.x`), web push IDs (`web.com.x`) and MDM topics (`com.apple.mgmt.External.<UUID>`).
    /// Empty topics, spaces, control characters, `/`, `:` and non-ASCII text fail.
    public static func isValid(_ topic: String) -> Bool {
        let count = topic.utf8.count
        guard count > 0, count <= 255 else { return false }
        return UTF8Bytes.with(topic) { bytes in
            var previous: UInt8 = UInt8(ascii: ".")  // so a leading "." reads as ".."
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    break
                case UInt8(ascii: "."):
                    if previous == UInt8(ascii: ".") { return false }
                default:
                    return false
                }
                previous = byte
            }
            return previous != UInt8(ascii: ".")
        }
    }

    /// The push type whose topic suffix `topic` ends with (`com.x.voip` → `.voip`,
    /// `com.x.push-type.widgets` → `.widgets`), or `nil` for a bare bundle ID. No suffix ends
    /// another one (`.voip-ptt` does not end with `.voip`), so the answer is unique.
    public static func suffixPushType(of topic: String) -> PushType? {
        UTF8Bytes.with(topic) { bytes in
            for entry in suffixes where UTF8Bytes.hasProperSuffix(bytes, entry.bytes) {
                return entry.type
            }
            return nil
        }
    }

    /// The reason a push of `pushType` to `topic` is refused, or `nil` when they fit. Applies
    /// only when `apns-push-type` was sent: an inferred type is never checked against the topic.
    ///
    /// - A non-`voip` push type to a `.voip` topic → `InvalidPushType` (observed 2019-2020:
    ///   apnotic#87, sideshow/apns2#149, PyAPNs2#87).
    /// - A push type whose topic needs a suffix (voip, complication, liveactivity, widgets...)
    ///   to a topic without it → `DeviceTokenNotForTopic` (inferred from pushok#97, #108).
    /// - Decision: a suffix-less type (alert, background, mdm) to a topic carrying another type's
    ///   suffix (e.g. alert to `com.x.complication`) → `DeviceTokenNotForTopic`, the same mismatch
    ///   seen from the other side.
    public static func pushTypeMismatch(_ pushType: PushType, topic: String) -> Reason? {
        let topicType = suffixPushType(of: topic)
        if topicType == pushType { return nil }
        if topicType == .voip { return .invalidPushType }
        if pushType.topicSuffix == nil && topicType == nil { return nil }
        return .deviceTokenNotForTopic
    }

    /// `topic` without its push-type suffix (`com.x.voip` → `com.x`), or `nil` when it has none.
    /// Used to match a device registered for its app's bundle ID.
    static func bundleID(of topic: String) -> Substring? {
        guard let type = suffixPushType(of: topic), let suffix = type.topicSuffix else { return nil }
        let utf8 = topic.utf8
        let end = utf8.index(utf8.endIndex, offsetBy: -suffix.utf8.count)
        return topic[..<end]  // the suffix is ASCII, so `end` is a scalar boundary
    }

    /// The push types that require a topic suffix, with the suffix's bytes, built once.
    /// Compared byte-wise: `String.hasSuffix` compares by Unicode equivalence, slower and
    /// pointless for ASCII suffixes. A bare suffix (`.voip`) is no bundle ID plus suffix, so the
    /// suffix must be strictly shorter than the topic.
    private static let suffixes: [(type: PushType, bytes: [UInt8])] = PushType.allCases.compactMap { type in
        type.topicSuffix.map { (type, Array($0.utf8)) }
    }
}
