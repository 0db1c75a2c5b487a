import APNsCore

/// What a push's metrics series is labelled with besides its answer (`PushSeries`): where it
/// arrived and what it asked for, never the device token (`GET /metrics`, `mock_apns_pushes_total`;
/// README "Metrics"). Passed to `DeliveryStore` with each record, which counts it under its lock.
public struct PushLabels: Sendable, Hashable {
    /// The listener's name; empty when unknown (a record appended without labels).
    public var listener: String
    /// The listener's environment; nil when unknown.
    public var environment: APNsEnvironment?
    /// The push type validation read (`apns-push-type`), nil when absent or invalid.
    public var pushType: PushType?
    /// The priority validation read (`apns-priority`), nil when absent or invalid.
    public var priority: Int?

    /// Memberwise initializer.
    public init(listener: String, environment: APNsEnvironment?, pushType: PushType?, priority: Int?) {
        self.listener = listener
        self.environment = environment
        self.pushType = pushType
        self.priority = priority
    }

    /// The labels of `record`: its listener, environment, push type and priority.
    public init(_ record: borrowing DeliveryRecord) {
        self.init(
            listener: record.listener, environment: record.environment, pushType: record.verdict.pushType,
            priority: record.verdict.priority)
    }

    /// No labels: what a record appended in compact form without them counts under.
    public static let unknown = PushLabels(listener: "", environment: nil, pushType: nil, priority: nil)
}
