/// What one `BinaryFrameDecoder.feed` found in the bytes given, in stream order
/// (docs/legacy-binary.md §3).
public struct BinaryFeedResult: Equatable, Sendable {
    /// Notifications whose frames are well formed, to be judged by the APNs checks in this order
    /// and, when accepted, answered with nothing. They all come before `rejection`.
    public var notifications: [BinaryNotification]
    /// The notification that ends the connection, when one was found: write its error packet
    /// (if any), then close.
    public var rejection: BinaryRejection?
    /// Whole notifications found after the stream stopped being served (after a rejection, or
    /// after `BinaryFrameDecoder.stop()`): discarded unjudged, as Apple discarded them.
    public var discarded: [BinaryNotification]

    /// Creates a result.
    public init(
        notifications: [BinaryNotification] = [], rejection: BinaryRejection? = nil,
        discarded: [BinaryNotification] = []
    ) {
        self.notifications = notifications
        self.rejection = rejection
        self.discarded = discarded
    }
}
