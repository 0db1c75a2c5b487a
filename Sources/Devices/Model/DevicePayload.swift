import APNsCore
import Foundation

/// What a virtual device reads from a push body (docs/device-model.md §3): the `aps` kinds as
/// APNsCore judges them (`PayloadFacts`, from `PayloadInspector.facts(of:)`, the same walk the
/// gateway's lints use), plus the values the device needs and the gateway does not: the badge
/// number, the category, `mutable-content`, whether the alert has text.
///
/// On the push path the kinds come from the gateway's validation (`init(body:facts:)`): the
/// body's yajl pass keeps kinds, not values, so the body is parsed once more, with Foundation's
/// `JSONSerialization`, only when those kinds show `aps` holds a value the device reads
/// (anything but `content-available`), and never walked for its kinds again. A body that is not
/// a JSON object reads as an empty payload (silent, nothing to show).
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

    /// The payload's values read from `body` (UTF-8 JSON): parsed, and its kinds judged, here.
    public init(body: [UInt8]) {
        self.init(facts: PayloadFacts())
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else { return }
        facts = PayloadInspector.facts(of: object)
        read(object)
    }

    /// The payload's values for `body` (UTF-8 JSON) whose kinds the gateway's validation already
    /// judged (`facts`, from `PayloadInspector.inspect`): equal to `init(body:)` of the same body.
    /// `body` is parsed (Foundation) only when `aps` is a dictionary with a key other than
    /// `content-available`; a background push (`aps` holding only `content-available`) or a
    /// body without `aps` is not parsed at all (docs/device-model.md §7).
    package init(body: [UInt8], facts: PayloadFacts) {
        self.init(facts: facts)
        guard facts.aps == .dictionary else { return }
        contentAvailable = facts.contentAvailableIsOne
        guard facts.apsHasOtherKeys else { return }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else { return }
        read(object)
    }

    /// No values yet, with `facts` as the kinds.
    private init(facts: PayloadFacts) {
        self.facts = facts
        alertHasText = false
        badge = nil
        hasSound = false
        contentAvailable = false
        mutableContent = false
        category = nil
    }

    /// Reads the values of `object` (the body parsed) whose kinds `facts` holds.
    private mutating func read(_ object: [String: Any]) {
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
