import APNsCore
import Foundation

/// What a virtual device reads from a push body (docs/device-model.md §3): the `aps` kinds as
/// APNsCore judges them (`PayloadFacts`, from `PayloadInspector.facts(of:)`, the same walk the
/// gateway's lints use), plus the values the device needs and the gateway does not: the badge
/// number, the category, `mutable-content`, whether the alert has text.
///
/// The body is parsed once more, with Foundation's `JSONSerialization`, only for a push to a
/// virtual device: the gateway's fast path (yajl) keeps kinds, not values. A body that is not a
/// JSON object reads as an empty payload (silent, nothing to show).
public struct DevicePayload: Sendable, Equatable {
    /// The kinds of the `aps` keys, as APNsCore's lints see them.
    package var facts: PayloadFacts
    /// `aps.alert` is a non-empty string, or a dictionary with a `title`, `subtitle` or `body`
    /// (or their `-loc-key` forms): something a banner can show.
    public var alertHasText: Bool
    /// `aps.badge` when it is an integral number (0 removes the badge); nil otherwise.
    public var badge: Int?
    /// `aps.sound` is a non-empty string or a dictionary.
    public var hasSound: Bool
    /// `aps.content-available` is 1.
    public var contentAvailable: Bool
    /// `aps.mutable-content` is 1.
    public var mutableContent: Bool
    /// `aps.category` when it is a string.
    public var category: String?

    /// The payload's values read from `body` (UTF-8 JSON).
    public init(body: [UInt8]) {
        facts = PayloadFacts()
        alertHasText = false
        badge = nil
        hasSound = false
        contentAvailable = false
        mutableContent = false
        category = nil
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else { return }
        facts = PayloadInspector.facts(of: object)
        guard facts.aps == .dictionary, let aps = object["aps"] as? [String: Any] else { return }
        contentAvailable = facts.contentAvailableIsOne
        switch aps["alert"] {
        case let text as String: alertHasText = !text.isEmpty
        case let alert as [String: Any]:
            alertHasText = ["title", "subtitle", "body", "title-loc-key", "subtitle-loc-key", "loc-key"].contains {
                (alert[$0] as? String).map { !$0.isEmpty } ?? false
            }
        default: break
        }
        if facts.badge == .number, let number = aps["badge"] as? NSNumber,
            number.doubleValue.rounded() == number.doubleValue
        {
            badge = number.intValue
        }
        switch aps["sound"] {
        case let name as String: hasSound = !name.isEmpty
        case is [String: Any]: hasSound = true
        default: break
        }
        if let number = aps["mutable-content"] as? NSNumber, PayloadInspector.kind(of: number) == .number {
            mutableContent = number.doubleValue == 1
        }
        category = aps["category"] as? String
    }

    /// Something is shown or heard: alert text, a sound or a badge.
    public var isVisible: Bool { alertHasText || hasSound || badge != nil }
}
