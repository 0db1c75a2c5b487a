import APNsCore

/// A channel the configuration file makes at start (`broadcast.channels`; docs/broadcast.md §4):
/// its ID is given, unlike a create's (Apple's IDs cannot be asked for), so that configured
/// virtual devices can subscribe to it (`devices[N].channels`) and a test knows it beforehand.
/// It counts toward `channelLimit` and `totalChannelLimit`, as any live channel does.
public struct ConfiguredChannel: Sendable, Hashable {
    /// The `apns-channel-id`: well-formed base64 (`isChannelID`), unique in the file.
    public var id: String
    /// The app it belongs to (the bare bundle ID of its paths).
    public var bundleID: String
    /// The environment it lives in (channels are not shared across environments, A1).
    public var environment: APNsEnvironment
    /// Its `message-storage-policy`, immutable as a created channel's.
    public var storagePolicy: MessageStoragePolicy

    public init(
        id: String, bundleID: String, environment: APNsEnvironment = .sandbox,
        storagePolicy: MessageStoragePolicy = .mostRecentMessageStored
    ) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.storagePolicy = storagePolicy
    }

    /// Whether `text` is a channel ID a request could name: non-empty standard padded base64 of
    /// at most 128 characters, decoding to at least one byte (else `BadChannelId`; §3, "Requests").
    public static func isChannelID(_ text: String) -> Bool { Base64.isChannelID(text) }
}
