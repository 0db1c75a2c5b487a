/// The knobs of the channel and broadcast APIs where Apple is silent or contradicts itself
/// (docs/broadcast.md §3).
public struct BroadcastOptions: Sendable, Equatable {
    /// Bundle IDs whose Broadcast capability is off: every request for them gets 400
    /// `FeatureNotEnabled`. Default none: a sender works with nothing configured.
    public var disabledBundleIDs: Set<String>
    /// Whether `apns-priority: 1` is taken on a broadcast (Apple's broadcast page says medium and
    /// low priorities may be grouped, which implies 1; ActivityKit says 5 or 10). Default true.
    public var acceptsPriority1: Bool
    /// Whether `aps.event: start` is rejected (400 `BadRequestParams`) rather than recorded as
    /// a lint ("broadcast cannot start a Live Activity"). Default false: a lint.
    public var rejectsStartEvent: Bool
    /// Whether the other ActivityKit payload lints are 400 `BadRequestParams`. Default false.
    public var lintsAsErrors: Bool
    /// Whether APNSwift 234d745's older shapes are served: the channel ID as a path segment
    /// (`GET`/`DELETE /1/apps/<bundle>/channels/<id>`) and a create body without `push-type`.
    /// Default true; when false those get 404 `BadPath` and 400 `BadRequestParams`.
    public var legacyAPNSwiftForms: Bool
    /// Live channels per app and environment, 1 to 1,000,000 (Apple: 10,000); past it a create
    /// gets 400 `CannotCreateChannelConfig` (`ChannelStore.limit`).
    public var channelLimit: Int
    /// Live channels in all apps and environments, 1 to 10,000,000 (Apple publishes no such
    /// bound; this one bounds the mock's memory, about 200 bytes a channel); past it a create gets
    /// 400 `CannotCreateChannelConfig` (`ChannelStore.totalLimit`). Default 100,000.
    public var totalChannelLimit: Int
    /// How long a Most Recent Message Stored channel's latest broadcast is kept for an offline
    /// subscribed device, in seconds, 1 to 30 days (Apple: "at most 8 hours", 28,800; earlier when
    /// `apns-expiration` says so). No Message Stored keeps nothing (docs/broadcast.md §5).
    public var storedMessageSeconds: Int
    /// Channels made at start with their own IDs (the configuration file's `broadcast.channels`),
    /// in the store of the server and of every isolated gateway. Default none.
    public var channels: [ConfiguredChannel] = []

    public init(
        disabledBundleIDs: Set<String> = [], acceptsPriority1: Bool = true, rejectsStartEvent: Bool = false,
        lintsAsErrors: Bool = false, legacyAPNSwiftForms: Bool = true, channelLimit: Int = 10_000,
        totalChannelLimit: Int = 100_000,
        storedMessageSeconds: Int = Int(MessageStoragePolicy.mostRecentMessageStored.storedSeconds)
    ) {
        self.channelLimit = channelLimit
        self.totalChannelLimit = totalChannelLimit
        self.storedMessageSeconds = storedMessageSeconds
        self.disabledBundleIDs = disabledBundleIDs
        self.acceptsPriority1 = acceptsPriority1
        self.rejectsStartEvent = rejectsStartEvent
        self.lintsAsErrors = lintsAsErrors
        self.legacyAPNSwiftForms = legacyAPNSwiftForms
    }

    /// The largest broadcast payload, in bytes (Apple: 5120); larger → 413 `PayloadTooLarge`.
    public static let maxPayloadBytes = 5120
}
