/// Sends a `ComposedPush` to one of the server's own APNs listeners, for `POST /v1/send`
/// (docs/console.md). The server's implementation uses the repository's HTTP/2 client on a
/// background thread, never the control loop's.
public protocol PushSender: Sendable {
    /// Starts sending `push` and returns at once; calls `completion` exactly once, on any
    /// thread, with the answer or why there was none.
    func send(_ push: ComposedPush, completion: @escaping @Sendable (ComposedPushAnswer) -> Void)
}
