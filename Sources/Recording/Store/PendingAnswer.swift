import APNsCore

/// What a pending record will say once its held answer is sent (`DeliveryStore.markAnswered`):
/// a push held by a `delay` fault is recorded with no status (`"status": null`, no `unanswered`
/// cause: pending) until its response HEADERS is serialized (issue 13).
public struct PendingAnswer: Sendable, Equatable {
    /// The status the stream will be answered (not 0).
    public var status: Int
    /// The reason answered; nil on 200.
    public var reason: Reason?

    public init(status: Int, reason: Reason?) {
        self.status = status
        self.reason = reason
    }
}
