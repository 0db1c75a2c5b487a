/// Sends a `ComposedPush` to one of the server's own APNs listeners, for `POST /v1/send`
/// (docs/console.md). The server's implementation uses the repository's HTTP/2 client on a
/// background thread, never the control loop's.
public protocol PushSender: Sendable {
    /// Starts sending `push` and returns at once; calls `completion` exactly once, on any
    /// thread, with the answer or why there was none.
    func send(_ push: ComposedPush, completion: @escaping @Sendable (ComposedPushAnswer) -> Void)
    /// The names of the listeners it can send to, for `POST /v1/send` to refuse an unknown
    /// `listener` with 404 before sending; nil (the default): not known, not checked.
    var listenerNames: [String]? { get }
}

extension PushSender {
    /// Not known: `POST /v1/send` does not check `listener`.
    public var listenerNames: [String]? { nil }
}
