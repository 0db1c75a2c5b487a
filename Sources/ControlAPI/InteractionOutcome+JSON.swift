import Devices
import Foundation
import JSONInput

extension InteractionOutcome {
    /// A user interaction's outcome (docs/device-model.md §4): `{"response": {"notification",
    /// "actionIdentifier", "userText"} or null (a dismissal without customDismissAction),
    /// "didReceive": the method that got it or null, "launch": "none" | "launchedWithRemoteNotification"
    /// | "broughtToForeground" | "launchedInBackground" | "resumedInBackground",
    /// "launchOptionsRemoteNotification": the payload (JSON) or null, "appStateBefore",
    /// "appStateAfter", "at" (ISO 8601, server clock), "atSeconds"}`.
    public func jsonValue() -> JSONNode {
        let payload = launchOptionsRemoteNotification.map { (try? JSONNode(decoding: $0)) ?? .null } ?? .null
        return [
            "response": response.map {
                [
                    "notification": .uint($0.notification), "actionIdentifier": .string($0.actionIdentifier),
                    "userText": $0.userText.map { .string($0) } ?? .null,
                ] as JSONNode
            } ?? .null,
            "didReceive": response == nil
                ? .null : .string("userNotificationCenter(_:didReceive:withCompletionHandler:)"),
            "launch": .string(launch.rawValue),
            "launchOptionsRemoteNotification": payload,
            "appStateBefore": .string(appStateBefore.rawValue),
            "appStateAfter": .string(appStateAfter.rawValue),
            "at": .string(ISO8601Timestamp.format(epochSeconds: at)),
            "atSeconds": .double(at),
        ]
    }
}
