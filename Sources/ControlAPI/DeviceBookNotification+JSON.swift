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
}
