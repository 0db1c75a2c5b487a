import APNsCore
import Devices
import JSONInput
import JSONSupport

/// Which records of pushes to virtual devices a delivery query or wait wants, by their lifecycle
/// (docs/device-model.md §7), on top of `DeliveryFilter`: query parameters `lifecycle` (the
/// current state's kind: `received`, `delivered`, `stored`, `discarded`, `replaced`),
/// `presentation` (`shown`: delivered as a banner or list entry; `none`: delivered, nothing shown;
/// `silent`: a delivered silent push, `apns-push-type: background`) and
/// `callback` (`willPresent`, `didReceiveRemoteNotification`, `pushKit`, or `none`: delivered,
/// no app code ran). A set parameter matches only records that have a lifecycle.
struct LifecycleFilter: Sendable, Equatable {
    /// The current state's kind.
    var state: String?
    /// `shown`, `none` or `silent`.
    var presentation: String?
    /// A callback name or `none`.
    var callback: String?

    /// The query parameter names, in documentation order.
    static let queryParameterNames = ["lifecycle", "presentation", "callback"]
    static let states = ["received", "delivered", "stored", "discarded", "replaced"]
    static let presentations = ["shown", "none", "silent"]
    static let callbacks = ["willPresent", "didReceiveRemoteNotification", "pushKit", "none"]

    /// Reads the parameters from `query`; nil when none is given.
    /// - Throws: a 400 naming the parameter, with the accepted values and a "did you mean".
    static func read(_ query: [String: String]) throws(ControlError) -> LifecycleFilter? {
        func value(_ name: String, among names: [String]) throws(ControlError) -> String? {
            guard let text = query[name] else { return nil }
            guard names.contains(text) else {
                throw .badRequest(
                    "\(name) must be one of \(names.joined(separator: ", ")), got \(InputError.quoted(text))"
                        + ClosestMatch.hint(text, among: names))
            }
            return text
        }
        let filter = LifecycleFilter(
            state: try value("lifecycle", among: states), presentation: try value("presentation", among: presentations),
            callback: try value("callback", among: callbacks))
        return filter == LifecycleFilter() ? nil : filter
    }

    /// Whether the notification (nil: the record has no lifecycle) matches.
    func matches(_ notification: DeviceBook.Notification?) -> Bool {
        guard let notification, let current = notification.state else { return false }
        if let state, Self.kind(of: current) != state { return false }
        let reaction = notification.reaction
        if let presentation {
            guard let reaction else { return false }
            switch presentation {
            case "shown": if !reaction.presentation.isShown { return false }
            case "none": if reaction.presentation.isShown { return false }
            default: if notification.pushType != .background { return false }
            }
        }
        if let callback {
            guard let reaction else { return false }
            let names = reaction.callbacks.map(Self.name)
            if callback == "none" ? !names.isEmpty : !names.contains(callback) { return false }
        }
        return true
    }

    static func kind(of state: LifecycleState) -> String {
        switch state {
        case .received: "received"
        case .delivered: "delivered"
        case .stored: "stored"
        case .discarded: "discarded"
        case .replaced: "replaced"
        }
    }

    static func name(of callback: DeviceReaction.Callback) -> String {
        switch callback {
        case .willPresent: "willPresent"
        case .didReceiveRemoteNotification: "didReceiveRemoteNotification"
        case .pushKit: "pushKit"
        }
    }
}
