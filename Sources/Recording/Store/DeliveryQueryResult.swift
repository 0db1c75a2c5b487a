import APNsCore

/// What `DeliveryStore.query` found.
public typealias DeliveryQueryResult = SequenceQueryResult<DeliveryRecord>

extension SequenceQueryResult where Element == DeliveryRecord {
    /// The matching records, oldest first.
    public var deliveries: [DeliveryRecord] { elements }
}
