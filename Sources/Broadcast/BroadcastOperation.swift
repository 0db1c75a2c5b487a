/// What a channel-management or broadcast request asks for (docs/broadcast.md §A2): the
/// recorded `operation` of a `channel` or `broadcast` record.
public enum BroadcastOperation: String, Sendable, Hashable, CaseIterable, Codable {
    /// `POST /1/apps/<bundle>/channels`.
    case createChannel
    /// `GET /1/apps/<bundle>/channels` with `apns-channel-id`.
    case readChannel
    /// `DELETE /1/apps/<bundle>/channels` with `apns-channel-id`.
    case deleteChannel
    /// `GET /1/apps/<bundle>/all-channels`.
    case listChannels
    /// `POST /4/broadcasts/apps/<bundle>`.
    case sendBroadcast

    /// `channel` for the four channel-management operations, `broadcast` for a send: the
    /// record's `kind`.
    public var kind: String { self == .sendBroadcast ? "broadcast" : "channel" }
}
