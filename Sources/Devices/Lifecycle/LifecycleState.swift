/// A state of one notification on its way to a virtual device, in the terms of Apple's Push
/// Notifications Console (docs/device-model.md §2): Received, then Delivered, Stored or
/// Discarded; `replaced` ends a notification a newer one took the place of.
public enum LifecycleState: Sendable, Hashable {
    /// Accepted by APNs ("Received by APNs").
    case received
    /// On the device ("Delivered to Device"; "(From Storage)" when `fromStorage`).
    case delivered(fromStorage: Bool)
    /// Kept for a later attempt.
    case stored(StoreCause)
    /// Dropped, never to be delivered ("(From Storage)" when it was stored first).
    case discarded(DiscardCause, fromStorage: Bool)
    /// Overwritten by the notification `by` before it was delivered: in storage (one per app) or
    /// in a low-power hold by the same `apns-collapse-id`. (A delivered one collapsed on the device
    /// stays Delivered: `DeviceBook.Notification.replacedOnDeviceBy`.)
    case replaced(by: UInt64)

    /// Why a notification is kept.
    public enum StoreCause: String, Sendable, Hashable {
        /// "Stored - Device Offline": APNs keeps it until the device connects (§2.1).
        case deviceOffline
        /// "Stored - Power Considerations": priority 5 or 1 to a device in low power, delivered in
        /// a burst (§2.5).
        case powerConsiderations
        /// Held by the device past its background budget (§2.6); the console counts it under
        /// power considerations.
        case backgroundBudget
    }

    /// Why a notification is dropped.
    public enum DiscardCause: String, Sendable, Hashable {
        /// "Discarded - Token Unregistered": the app was removed (§2.3).
        case tokenUnregistered
        /// "Discarded - Disabled": the user disabled notifications for the app (§2.3).
        case disabled
        /// "Discarded - Expired": `apns-expiration` passed, or 0 with the device unreachable (§2.2).
        case expired
        /// Past the background budget with `overBudget: drop` (§2.6). Apple's console has no name
        /// of its own for it: a push under a power restriction that is not kept is the decision
        /// flow's expired branch, so the console name is "Discarded - Expired" (`consoleCause`).
        case backgroundBudget
        /// A held background push whose app was force-quit or terminated (§2.6). A MockAPNs
        /// extension: Apple's console names no such state ("Discarded - App Terminated").
        case appTerminated

        /// The cause as Apple's console names and counts it: `expired` for `backgroundBudget`
        /// (docs/device-model.md §2.6), the cause itself otherwise.
        public var consoleCause: DiscardCause { self == .backgroundBudget ? .expired : self }
    }

    /// The console's name of the state, e.g. `Stored - Device Offline`, `Discarded - Expired (From Storage)`.
    public var consoleName: String {
        switch self {
        case .received: return "Received by APNs"
        case .delivered(let fromStorage): return "Delivered to Device" + (fromStorage ? " (From Storage)" : "")
        case .stored(.deviceOffline): return "Stored - Device Offline"
        case .stored(.powerConsiderations), .stored(.backgroundBudget): return "Stored - Power Considerations"
        case .discarded(let cause, let fromStorage):
            let name: String
            switch cause.consoleCause {
            case .tokenUnregistered: name = "Discarded - Token Unregistered"
            case .disabled: name = "Discarded - Disabled"
            case .expired: name = "Discarded - Expired"
            case .backgroundBudget: name = "Discarded - Expired"
            case .appTerminated: name = "Discarded - App Terminated"
            }
            return name + (fromStorage ? " (From Storage)" : "")
        case .replaced: return "Replaced"
        }
    }
}
