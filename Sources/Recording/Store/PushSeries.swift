import APNsCore

/// One series of `mock_apns_pushes_total` (`GET /metrics`): the push's labels and the status and
/// reason its record says were answered. `DeliveryStore.pushSeries()` counts records by it.
public struct PushSeries: Sendable, Hashable {
    /// Listener, environment, push type and priority.
    public var labels: PushLabels
    /// The status the record says (0: no HTTP answer, or not yet; as `DeliveryRecord.status`).
    public var status: Int
    /// The reason the record says; nil on 200 and when none.
    public var reason: Reason?

    /// Memberwise initializer.
    public init(labels: PushLabels, status: Int, reason: Reason?) {
        self.labels = labels
        self.status = status
        self.reason = reason
    }
}
