import Devices
import JSONInput

extension DeviceBook.Notification {
    /// The keys a delivery record of a push to a virtual device gains (docs/device-model.md §7),
    /// joined at read time by seq: `"lifecycle"` (the transitions, `LifecycleEvent.jsonValue()`),
    /// `"lifecycleState"` (the console name of the last), `"device"` (`DeviceReaction.jsonValue()`
    /// once delivered, with `presentation.replacedBy` the collapse on the device, else null) and `"interactions"` (`InteractionOutcome.jsonValue()`).
    public func jsonMembers() -> [String: JSONNode] {
        [
            "lifecycle": .array(events.map { $0.jsonValue() }),
            "lifecycleState": state.map { .string($0.consoleName) } ?? .null,
            "device": reaction?.jsonValue(replacedOnDeviceBy: replacedOnDeviceBy) ?? .null,
            "interactions": .array(interactions.map { $0.jsonValue() }),
        ]
    }

    /// One device's copy of a broadcast as its record shows it (docs/broadcast.md §5):
    /// `jsonMembers()` with `"deviceToken"` and `"notification"`, the copy's id (as the device
    /// view's `stored`, `delivered` and `shown` name it).
    public func fanOutMembers() -> [String: JSONNode] {
        var members = jsonMembers()
        members["deviceToken"] = .string(token)
        members["notification"] = .uint(id)
        return members
    }
}
