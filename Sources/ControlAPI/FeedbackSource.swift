/// What the feedback service holds for its next read, for `GET /v1/feedback`
/// (docs/legacy-binary.md §4): the server's feedback listener, or nothing when none is configured.
public protocol FeedbackSource: Sendable {
    /// The entries the next feedback read would send, in the order it would send them; listing
    /// them does not take them.
    func pendingFeedback() -> [FeedbackEntry]
}
