/// Something answers must wait for before they are written (`HTTP2RequestHandler.answerDurability`):
/// MockAPNs's delivery journal with `--journal-sync always`, so that no push is answered before
/// its record is on disk (README "Journal").
public protocol AnswerDurability: AnyObject, Sendable {
    /// Returns once whatever the answers about to be written depend on is durable; called on a
    /// connection's loop thread before each write-out, so it must return at once when nothing
    /// is waiting.
    func awaitDurable()
}
