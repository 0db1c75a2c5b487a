import APNsCore

/// Delivery metrics as Apple's Push Notifications Console counts them (docs/device-model.md §7;
/// MET): how many notifications were received, delivered (and of those, from storage), stored
/// (device offline, power considerations) and discarded (by cause, and from storage), in total,
/// by push type and by priority. Each transition counts once, in the window it was stamped in.
public struct DeliveryMetrics: Sendable, Equatable {
    /// The counts of one slice (all, one push type, one priority).
    public struct Counts: Sendable, Equatable {
        /// "Received by APNs".
        public var received = 0
        /// "Delivered to Device", including from storage.
        public var delivered = 0
        /// "Delivered to Device (From Storage)".
        public var deliveredFromStorage = 0
        /// "Stored - Device Offline".
        public var storedDeviceOffline = 0
        /// "Stored - Power Considerations", including device-side background-budget holds.
        public var storedPowerConsiderations = 0
        /// Discarded at once, by cause as the console counts it (`LifecycleState.DiscardCause`
        /// raw values of `consoleCause`: a background-budget drop counts as `expired`).
        public var discarded: [String: Int] = [:]
        /// Discarded from storage or a hold, by cause.
        public var discardedFromStorage: [String: Int] = [:]
        /// Replaced by a newer notification before delivery (in storage or a hold); a delivered
        /// one collapsed on the device counts as delivered only.
        public var replaced = 0

        public init() {}

        mutating func count(_ state: LifecycleState) {
            switch state {
            case .received: received += 1
            case .delivered(let fromStorage):
                delivered += 1
                if fromStorage { deliveredFromStorage += 1 }
            case .stored(.deviceOffline): storedDeviceOffline += 1
            case .stored: storedPowerConsiderations += 1
            case .discarded(let reason, let fromStorage):
                let cause = reason.consoleCause
                if fromStorage {
                    discardedFromStorage[cause.rawValue, default: 0] += 1
                } else {
                    discarded[cause.rawValue, default: 0] += 1
                }
            case .replaced: replaced += 1
            }
        }
    }

    /// Every notification.
    public var total = Counts()
    /// By push type (raw value, e.g. `alert`).
    public var byPushType: [String: Counts] = [:]
    /// By `apns-priority` (10, 5, 1).
    public var byPriority: [Int: Counts] = [:]

    public init() {}

    /// Counts one transition of a notification of `pushType` and `priority`.
    mutating func count(_ state: LifecycleState, pushType: PushType, priority: Int) {
        total.count(state)
        byPushType[pushType.rawValue, default: Counts()].count(state)
        byPriority[priority, default: Counts()].count(state)
    }
}
