/// What `ConnectionEventStore.query` found.
public typealias ConnectionEventQueryResult = SequenceQueryResult<ConnectionEvent>

extension SequenceQueryResult where Element == ConnectionEvent {
    /// The matching events, oldest first.
    public var events: [ConnectionEvent] { elements }
}
