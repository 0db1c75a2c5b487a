import APNsCore

/// One broadcast channel: made by a create request (or the control API on its behalf), found
/// by `id` within its app and environment, gone after a delete (docs/broadcast.md §A2, §A5).
public struct Channel: Sendable, Hashable {
    /// The base64 channel ID APNs generated (`apns-channel-id`).
    public var id: String
    /// The app's bare bundle ID, as in the request path.
    public var bundleID: String
    /// The environment of the listener it was created on; a channel is not seen from the other one.
    public var environment: APNsEnvironment
    /// Immutable after creation.
    public var storagePolicy: MessageStoragePolicy
    /// When it was created, in milliseconds since the Unix epoch.
    public var createdAtMilliseconds: Int64

    public init(
        id: String, bundleID: String, environment: APNsEnvironment, storagePolicy: MessageStoragePolicy,
        createdAtMilliseconds: Int64
    ) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.storagePolicy = storagePolicy
        self.createdAtMilliseconds = createdAtMilliseconds
    }

    /// The read answer's body: `{"message-storage-policy":N,"push-type":"LiveActivity"}`, keys in
    /// that order (Apple's sample).
    public var readBody: [UInt8] {
        Array(#"{"message-storage-policy":\#(storagePolicy.rawValue),"push-type":"LiveActivity"}"#.utf8)
    }
}
