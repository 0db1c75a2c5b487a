/// Computes the lints for a request whose body parsed as a JSON object (docs/apns-behaviour.md §9, lints;
/// Apple's rules from *Generating a remote notification*, *Pushing background updates to your
/// App* and *Communicating with APNs*).
enum PayloadLints {
    /// The lints in a fixed order (header, `aps` presence, priority, background content, key
    /// types, unknown keys); with `lintsAsErrors` the first one picks the reason.
    ///
    /// - Parameters:
    ///   - facts: the parsed body.
    ///   - pushType: the push type in force (sent, or inferred).
    ///   - pushTypeSent: false when `apns-push-type` was absent (an invalid value is not absent:
    ///     it already got `InvalidPushType`).
    ///   - priority: `apns-priority` in force (10 when absent), `nil` when invalid.
    static func lints(_ facts: PayloadFacts, pushType: PushType, pushTypeSent: Bool, priority: Int?) -> [PayloadLint] {
        var lints: [PayloadLint] = []
        if !pushTypeSent { lints.append(.missingPushType(inferred: pushType)) }

        let isAlert = pushType == .alert, isBackground = pushType == .background
        switch facts.aps {
        case .absent:
            if isAlert || isBackground { lints.append(.missingAps(pushType)) }
        case .dictionary:
            break
        default:
            lints.append(.apsNotDictionary)
        }

        if priority == 10 {
            if isBackground { lints.append(.backgroundAtPriority10) }
            // Only with an aps: a missing aps is already flagged above.
            if isAlert && facts.aps == .dictionary && !facts.hasVisibleContent {
                lints.append(.alertWithoutContentAtPriority10)
            }
        }

        if isBackground && facts.aps == .dictionary {
            if facts.hasVisibleContent { lints.append(.backgroundWithVisibleContent) }
            if facts.contentAvailable == .absent { lints.append(.backgroundWithoutContentAvailable) }
        }

        if facts.contentAvailable != .absent && !facts.contentAvailableIsOne { lints.append(.contentAvailableNotOne) }
        if !isStringOrDictionary(facts.alert) { lints.append(.alertWrongType) }
        if facts.badge != .absent && facts.badge != .number { lints.append(.badgeNotNumber) }
        if !isStringOrDictionary(facts.sound) { lints.append(.soundWrongType) }
        if !facts.unknownApsKeys.isEmpty {
            lints.append(.customApsKeys(facts.unknownApsKeys.sorted()))
        }
        return lints
    }

    @inline(__always)
    private static func isStringOrDictionary(_ kind: PayloadFacts.Kind) -> Bool {
        kind == .absent || kind == .string || kind == .dictionary
    }
}
