import Devices
import Foundation
import JSONInput

extension DeviceReaction {
    /// What the device did with a delivered push (docs/device-model.md §3), as records show it
    /// under `device`: `{"presentation": {"shown", "banner", "list", "sound", "badge" (the icon's
    /// badge after the push, or null when unchanged), "replacedBy" (the seq of the notification
    /// that later replaced it in Notification Center by collapse ID, `replacedOnDeviceBy`, or
    /// null)}, "callbacks": [{"name": "willPresent" |
    /// "didReceiveRemoteNotification" | "pushKit", "method": the Swift selector, "budgetSeconds"
    /// (fetch)}], "serviceExtension": {"status": "notRequested" | "ran" | "skipped", "reason"
    /// (skipped: noAlertText, alertsDisabled, noExtension), "budgetSeconds" (ran)}, "actions":
    /// [{"identifier", "title", "options", "textInput"}], "wake": "none" | "launchedInBackground" |
    /// "resumed", "appStateAfter", "lints": [...]}`.
    public func jsonValue(replacedOnDeviceBy: UInt64? = nil) -> JSONNode {
        var serviceExtensionJSON: [String: JSONNode]
        switch serviceExtension {
        case .notRequested: serviceExtensionJSON = ["status": .string("notRequested")]
        case .ran(let budget): serviceExtensionJSON = ["status": .string("ran"), "budgetSeconds": .int(Int64(budget))]
        case .skipped(let reason):
            serviceExtensionJSON = ["status": .string("skipped"), "reason": .string(reason.rawValue)]
        }
        return [
            "presentation": [
                "shown": .bool(presentation.isShown), "banner": .bool(presentation.banner),
                "list": .bool(presentation.list), "sound": .bool(presentation.sound),
                "badge": presentation.badge.map { .int(Int64($0)) } ?? .null,
                "replacedBy": replacedOnDeviceBy.map { .uint($0) } ?? .null,
            ],
            "callbacks": .array(callbacks.map(Self.json)),
            "serviceExtension": .object(serviceExtensionJSON),
            "actions": .array(actions.map(Self.json)),
            "wake": .string(wake.rawValue),
            "appStateAfter": .string(appStateAfter.rawValue),
            "lints": .array(lints.map { .string($0) }),
        ]
    }

    private static func json(_ callback: Callback) -> JSONNode {
        switch callback {
        case .willPresent:
            return [
                "name": .string("willPresent"),
                "method": .string("userNotificationCenter(_:willPresent:withCompletionHandler:)"),
            ]
        case .didReceiveRemoteNotification(let budget):
            return [
                "name": .string("didReceiveRemoteNotification"),
                "method": .string("application(_:didReceiveRemoteNotification:fetchCompletionHandler:)"),
                "budgetSeconds": .int(Int64(budget)),
            ]
        case .pushKit:
            return [
                "name": .string("pushKit"),
                "method": .string("pushRegistry(_:didReceiveIncomingPushWith:for:completion:)"),
            ]
        }
    }

    /// An action as registered: `{"identifier", "title", "options", "textInput"}`.
    static func json(_ action: NotificationAction) -> JSONNode {
        [
            "identifier": .string(action.identifier), "title": .string(action.title),
            "options": .array(action.options.map { .string($0.rawValue) }), "textInput": .bool(action.textInput),
        ]
    }
}
