import JSONInput

/// A broadcast payload that APNs accepts but that is no ActivityKit update (Apple, *Starting and
/// updating Live Activities with ActivityKit push notifications*; docs/broadcast.md §A4).
/// Recorded; with `BroadcastOptions.lintsAsErrors` (or `rejectsStartEvent`, for `eventStart`)
/// the first one is a 400 `BadRequestParams`.
public enum ActivityKitLint: Sendable, Hashable {
    /// No `aps` dictionary at the top level.
    case missingAps
    /// `aps.timestamp` absent or not a number (Unix seconds).
    case timestampMissing
    /// `aps.event` absent.
    case eventMissing
    /// `aps.event` neither `update` nor `end` (nor `start`).
    case eventUnknown(String)
    /// `aps.event: start`: a broadcast cannot start a Live Activity (a push-to-start to
    /// `/3/device` with `input-push-channel` does).
    case eventStart
    /// `aps.content-state` absent on an update, or not a dictionary.
    case contentStateMissing
    /// `aps.stale-date` or `aps.dismissal-date` (the key) not a number.
    case dateNotNumber(String)

    /// A short human string: what is wrong, then Apple's rule.
    public var message: String {
        switch self {
        case .missingAps:
            return
                "broadcast without an aps dictionary: an ActivityKit update lives in aps (ActivityKit push notifications)"
        case .timestampMissing:
            return
                "aps.timestamp missing or not a number: ActivityKit orders updates by it (ActivityKit push notifications)"
        case .eventMissing:
            return "aps.event missing: a broadcast is an update or an end (ActivityKit push notifications)"
        case .eventUnknown(let event):
            return "aps.event \(InputError.quoted(event)) is neither update nor end (ActivityKit push notifications)"
        case .eventStart:
            return "aps.event start: broadcast cannot start a Live Activity; a push-to-start with "
                + "input-push-channel does (ActivityKit push notifications)"
        case .contentStateMissing:
            return "aps.content-state missing or not a dictionary: an update carries the activity's new state "
                + "(ActivityKit push notifications)"
        case .dateNotNumber(let key):
            return "aps.\(key) is not a number: ActivityKit dates are Unix seconds (ActivityKit push notifications)"
        }
    }

    /// The lints of a payload that parsed as `object`, in a fixed order (aps, timestamp,
    /// event, content-state, dates).
    static func lints(of object: [String: JSONNode]) -> [ActivityKitLint] {
        guard case .object(let aps)? = object["aps"] else { return [.missingAps] }
        var lints: [ActivityKitLint] = []
        if !isNumber(aps["timestamp"]) { lints.append(.timestampMissing) }
        var isUpdate = false
        switch aps["event"] {
        case nil: lints.append(.eventMissing)
        case .string("update")?: isUpdate = true
        case .string("end")?: break
        case .string("start")?: lints.append(.eventStart)
        case .string(let other)?: lints.append(.eventUnknown(other))
        case let other?: lints.append(.eventUnknown(other.rendered))
        }
        switch aps["content-state"] {
        case .object?: break
        case nil where !isUpdate: break
        default: lints.append(.contentStateMissing)
        }
        for key in ["stale-date", "dismissal-date"] where aps[key] != nil && !isNumber(aps[key]) {
            lints.append(.dateNotNumber(key))
        }
        return lints
    }

    private static func isNumber(_ node: JSONNode?) -> Bool {
        switch node {
        case .int?, .uint?, .double?: return true
        default: return false
        }
    }
}
