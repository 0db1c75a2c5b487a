/// A payload or header habit APNs accepts but Apple's documentation calls wrong (docs/apns-behaviour.md §9,
/// lints). Recorded as `message` in `ValidationResult.lints`; with `ValidationOptions.lintsAsErrors` the
/// first lint becomes a 400 with `rejectionReason`.
public enum PayloadLint: Sendable, Hashable {
    /// `apns-push-type` absent; `inferred` is what the payload implies (background or alert).
    case missingPushType(inferred: PushType)
    /// An alert or background push whose payload has no `aps` (accepted: MDM and Wallet payloads
    /// have none, but alert and background pushes need one).
    case missingAps(PushType)
    /// `aps` is present but not a dictionary.
    case apsNotDictionary
    /// A background push at priority 10.
    case backgroundAtPriority10
    /// An alert push at priority 10 whose `aps` has no alert, sound or badge.
    case alertWithoutContentAtPriority10
    /// A background push whose `aps` also carries alert, badge or sound.
    case backgroundWithVisibleContent
    /// A background push without `content-available` in `aps`.
    case backgroundWithoutContentAvailable
    /// `content-available` present but not the number 1.
    case contentAvailableNotOne
    /// `alert` neither a string nor a dictionary.
    case alertWrongType
    /// `badge` not a number.
    case badgeNotNumber
    /// `sound` neither a string nor a dictionary.
    case soundWrongType
    /// Keys inside `aps` that Apple does not define, sorted.
    case customApsKeys([String])

    /// A short human string: what is wrong, then the Apple rule and the document stating it.
    /// Fixed messages are single literals, so recording a lint allocates nothing.
    public var message: String {
        switch self {
        case .missingPushType(.alert):
            return """
                apns-push-type missing (treated as alert): Apple requires it on watchOS 6 and later \
                and recommends it for every push (Sending notification requests to APNs)
                """
        case .missingPushType(.background):
            return """
                apns-push-type missing (treated as background): Apple requires it on watchOS 6 and later \
                and recommends it for every push (Sending notification requests to APNs)
                """
        case .missingPushType(let inferred):
            return "apns-push-type missing (treated as \(inferred.rawValue)): Apple requires it on watchOS 6 and later "
                + "and recommends it for every push (Sending notification requests to APNs)"
        case .missingAps(.alert):
            return """
                alert push without an aps dictionary: Apple puts the notification content of alert and \
                background pushes in aps (Generating a remote notification)
                """
        case .missingAps(.background):
            return """
                background push without an aps dictionary: Apple puts the notification content of alert and \
                background pushes in aps (Generating a remote notification)
                """
        case .missingAps(let type):
            return "\(type.rawValue) push without an aps dictionary: Apple puts the notification content of alert and "
                + "background pushes in aps (Generating a remote notification)"
        case .apsNotDictionary:
            return
                "aps is not a dictionary: Apple defines aps as a dictionary of keys (Generating a remote notification)"
        case .backgroundAtPriority10:
            return """
                background push at priority 10: Apple requires apns-priority 5 for background pushes \
                (Pushing background updates to your App)
                """
        case .alertWithoutContentAtPriority10:
            return """
                alert push at priority 10 without alert, sound or badge: Apple says priority 10 must \
                trigger an alert, sound or badge (Communicating with APNs)
                """
        case .backgroundWithVisibleContent:
            return """
                background push with alert, badge or sound in aps: Apple's background pushes hold only \
                content-available: 1 (Pushing background updates to your App)
                """
        case .backgroundWithoutContentAvailable:
            return """
                background push without aps.content-available: Apple's background pushes need \
                content-available: 1 (Pushing background updates to your App)
                """
        case .contentAvailableNotOne:
            return """
                aps.content-available is not 1: Apple's background flag is the number 1 \
                (Generating a remote notification)
                """
        case .alertWrongType:
            return """
                aps.alert is neither a string nor a dictionary: Apple allows only those \
                (Generating a remote notification)
                """
        case .badgeNotNumber:
            return """
                aps.badge is not a number: Apple's badge is a number, 0 to clear it \
                (Generating a remote notification)
                """
        case .soundWrongType:
            return """
                aps.sound is neither a string nor a dictionary: Apple allows a sound file name or a \
                critical-sound dictionary (Generating a remote notification)
                """
        case .customApsKeys(let keys):
            return "aps holds keys Apple does not define (\(keys.joined(separator: ", "))): APNs ignores them; "
                + "custom keys belong beside aps (Generating a remote notification)"
        }
    }

    /// The 400 reason when lints are errors (docs/apns-behaviour.md §9 says "the closest Apple reason").
    /// Decision: priority rules → `BadPriority` (docs/apns-behaviour.md §9); rules about what the push type says
    /// versus what the payload holds → `InvalidPushType` (Apple: the push type "must accurately
    /// reflect the contents of your notification's payload"); malformed `aps` keys →
    /// `invalidPayloadReason`, the reason the gateway answers for a payload it cannot use
    /// (`ValidationOptions.invalidPayloadReason`, default `PayloadEmpty`).
    public func rejectionReason(invalidPayloadReason: Reason) -> Reason {
        switch self {
        case .backgroundAtPriority10, .alertWithoutContentAtPriority10:
            return .badPriority
        case .missingPushType, .missingAps, .backgroundWithVisibleContent, .backgroundWithoutContentAvailable:
            return .invalidPushType
        case .apsNotDictionary, .contentAvailableNotOne, .alertWrongType, .badgeNotNumber, .soundWrongType,
            .customApsKeys:
            return invalidPayloadReason
        }
    }
}
