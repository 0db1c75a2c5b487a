/// The device model's settings where Apple gives no number (docs/device-model.md §5). Defaults
/// follow Apple's words where there are some.
public struct DeviceModelOptions: Sendable, Equatable {
    /// What happens to a background push past the budget (§2.6).
    public enum OverBudget: String, Sendable, Equatable, CaseIterable {
        /// Held (one per device, a newer replacing it) until the budget allows it, or the app is
        /// brought to the foreground.
        case hold
        /// Discarded.
        case drop
    }

    /// What APNs answers a push to a virtual device whose app is not installed (§2.3).
    public enum RemovedApp: String, Sendable, Equatable, CaseIterable {
        /// 410 `Unregistered`, `timestamp` the moment `installed` went false (default): the token
        /// is no longer active for the topic (apns-provider-api A2); the push never reaches the
        /// device.
        case unregistered
        /// 200, then "Discarded - Token Unregistered" (MET's decision flow: APNs learns of the
        /// removal only from the device).
        case discarded
    }

    /// The longest APNs stores a notification, in seconds: 30 days (§2.2).
    public var maxStorageSeconds: Double
    /// Background pushes delivered per `backgroundBudgetWindowSeconds` (§2.6): 3, Apple's "two or three per hour".
    public var backgroundBudget: Int
    /// The sliding window of the background budget, in seconds: 3600.
    public var backgroundBudgetWindowSeconds: Double
    /// Past the budget: hold (default) or drop.
    public var overBudget: OverBudget
    /// In low power, held priority 5 and 1 pushes go out in one burst this many seconds after the
    /// first of them was held (§2.5): 900.
    public var lowPowerBurstSeconds: Double
    /// Up to this many seconds more, drawn from `seed` (SplitMix64): 300.
    public var lowPowerBurstJitterSeconds: Double
    /// The seed of the burst jitter; the same seed gives the same bursts.
    public var seed: UInt64
    /// A device keeps the ids of at most this many delivered notifications and at most this many
    /// shown ones (Notification Center), the newest (docs/device-model.md §2.1): 1000. Apple gives
    /// no number; a bound keeps a long load test to one device from growing without end.
    public var historyLimit: Int
    /// A push to an app not installed: 410 `Unregistered` (default) or accepted and discarded (§2.3).
    public var removedApp: RemovedApp
    /// A device in low power holds at most this many priority 5 and 1 pushes (§2.5): 100. Apple
    /// gives no number; past it the oldest held is Replaced by the newest, so a load test to one
    /// device in low power stays bounded in memory and time.
    public var lowPowerHoldLimit: Int

    public init(
        maxStorageSeconds: Double = 30 * 86_400, backgroundBudget: Int = 3,
        backgroundBudgetWindowSeconds: Double = 3600,
        overBudget: OverBudget = .hold, lowPowerBurstSeconds: Double = 900, lowPowerBurstJitterSeconds: Double = 300,
        seed: UInt64 = 0, historyLimit: Int = 1000, removedApp: RemovedApp = .unregistered,
        lowPowerHoldLimit: Int = 100
    ) {
        self.maxStorageSeconds = maxStorageSeconds
        self.backgroundBudget = backgroundBudget
        self.backgroundBudgetWindowSeconds = backgroundBudgetWindowSeconds
        self.overBudget = overBudget
        self.lowPowerBurstSeconds = lowPowerBurstSeconds
        self.lowPowerBurstJitterSeconds = lowPowerBurstJitterSeconds
        self.seed = seed
        self.historyLimit = historyLimit
        self.removedApp = removedApp
        self.lowPowerHoldLimit = lowPowerHoldLimit
    }
}
