/// What a legacy binary gateway or feedback connection carried so far, as `GET /v1/connections`
/// lists it under `legacy` (docs/legacy-binary.md §8).
public struct LegacyConnectionCounts: Sendable, Equatable, Encodable {
    /// Notifications read whole (accepted, refused and discarded); 0 on feedback.
    public var notifications: UInt64
    /// Accepted (no answer).
    public var accepted: UInt64
    /// Refused with an error packet, or (command 0) a sever: at most 1.
    public var refused: UInt64
    /// Read after the refusal and discarded.
    public var discarded: UInt64
    /// Feedback tuples written (feedback only).
    public var feedbackTuples: UInt64

    /// Counts, each 0 unless given.
    public init(
        notifications: UInt64 = 0, accepted: UInt64 = 0, refused: UInt64 = 0, discarded: UInt64 = 0,
        feedbackTuples: UInt64 = 0
    ) {
        self.notifications = notifications
        self.accepted = accepted
        self.refused = refused
        self.discarded = discarded
        self.feedbackTuples = feedbackTuples
    }
}
