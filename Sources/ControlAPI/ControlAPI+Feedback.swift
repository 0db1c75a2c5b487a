import JSONSupport

/// `GET /v1/feedback`: what the feedback service would report on its next read.
extension ControlAPI {
    /// `{"feedback":[{"token","timestamp","environment"}],"count"}`; empty without a feedback listener.
    func feedbackResponse() -> ControlResponse {
        let entries = feedback?.pendingFeedback() ?? []
        return ControlResponse(status: 200, encoding: FeedbackList(feedback: entries, count: entries.count))
    }

    private struct FeedbackList: Encodable {
        let feedback: [FeedbackEntry]
        let count: Int
    }
}
