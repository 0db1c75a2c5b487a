/// One timestamped transition of one notification (docs/device-model.md §2): what the lifecycle
/// returns for the caller to record (the wiring round appends them to the delivery record).
public struct LifecycleEvent: Sendable, Equatable {
    /// The notification (`DevicePush.id`).
    public var notification: UInt64
    /// The state it entered.
    public var state: LifecycleState
    /// When, in seconds since the Unix epoch on the server's clock.
    public var at: Double
    /// For `stored` and `delivered`: the notification this one replaced (in storage or a hold,
    /// which becomes `replaced`; or on the device by collapse ID, which stays delivered).
    public var replaced: UInt64?
    /// For `delivered`: what the device did with it.
    public var reaction: DeviceReaction?

    public init(
        notification: UInt64, state: LifecycleState, at: Double, replaced: UInt64? = nil,
        reaction: DeviceReaction? = nil
    ) {
        self.notification = notification
        self.state = state
        self.at = at
        self.replaced = replaced
        self.reaction = reaction
    }
}
