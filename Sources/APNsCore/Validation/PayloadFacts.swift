/// What the lints and push-type inference need to know about a body that parsed as a JSON
/// object: the JSON kinds of the `aps` keys Apple defines (docs/apns-behaviour.md §8), gathered in one walk
/// of `JSONSerialization`'s result (`PayloadInspector`). Of duplicate keys the last one wins, as
/// in `JSONSerialization`. Read (package access) by target Devices, which takes its
/// kinds and these two rules from here rather than judging `aps` twice (docs/device-model.md §3).
package struct PayloadFacts: Equatable {
    /// The JSON kind of a value, with booleans apart from numbers (Apple's `badge` and
    /// `content-available` are numbers; `true` is not one).
    package enum Kind: Equatable {
        case absent, string, number, boolean, dictionary, array, null
    }

    /// Kind of the top-level `aps` value.
    package var aps: Kind = .absent
    /// `aps` has some key other than `content-available`.
    package var apsHasOtherKeys = false
    /// Kinds of `aps.alert`, `aps.badge`, `aps.sound` and `aps.content-available`.
    package var alert: Kind = .absent
    package var badge: Kind = .absent
    package var sound: Kind = .absent
    package var contentAvailable: Kind = .absent
    /// `content-available` is the number 1 (JSON `1` or `1.0`).
    package var contentAvailableIsOne = false
    /// Keys inside `aps` that Apple does not define, in no particular order; `PayloadLints` sorts them.
    package var unknownApsKeys: [String] = []

    /// `aps` holds only `content-available: 1`: Apple's background push (A6), and the inference
    /// rule for a missing `apns-push-type` (docs/apns-behaviour.md §9).
    package var isContentAvailableOnly: Bool { aps == .dictionary && !apsHasOtherKeys && contentAvailableIsOne }

    /// `aps` carries something the user sees or hears.
    package var hasVisibleContent: Bool { alert != .absent || badge != .absent || sound != .absent }

    /// No `aps`: the facts of `{}`.
    package init() {}
}
