/// A channel's `message-storage-policy`, fixed at creation (Apple, *Sending channel management
/// requests to APNs*; docs/broadcast.md §A5).
public enum MessageStoragePolicy: Int, Sendable, Hashable, CaseIterable, Codable {
    /// `0`, No Message Stored: one delivery attempt, nothing kept for an offline device; a
    /// broadcast must say `apns-expiration: 0` (or none).
    case noMessageStored = 0
    /// `1`, Most Recent Message Stored: the latest broadcast is kept for an offline device for
    /// at most 8 hours (`storedSeconds`), earlier if its `apns-expiration` says so.
    case mostRecentMessageStored = 1

    /// How long the most recent message is kept for an offline device: 8 hours under policy 1,
    /// 0 under policy 0 (docs/broadcast.md §A5).
    public var storedSeconds: Int64 { self == .mostRecentMessageStored ? 8 * 3600 : 0 }
}
