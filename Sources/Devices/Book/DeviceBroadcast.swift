import APNsCore

/// A broadcast APNs accepted (200 on `POST /4/broadcasts/apps/<bundle>`), as the virtual devices
/// subscribed to its channel receive it (`DeviceBook.fanOut(_:)`; docs/broadcast.md §5): one
/// notification per subscribed device, each with its own lifecycle, all made from this.
///
/// The channel's storage policy decides what an offline device gets: Most Recent Message Stored
/// keeps it for `storageLimitSeconds` (8 hours by default, earlier when `expiration` says so);
/// No Message Stored keeps nothing (one attempt: an offline device misses it).
public struct DeviceBroadcast: Sendable, Equatable {
    /// The broadcast's delivery record (its `seq`): the fan-out's notifications are found by it.
    public var seq: UInt64
    /// The `apns-channel-id` it was sent to.
    public var channelID: String
    /// `apns-priority`: 10, 5 or 1.
    public var priority: Int
    /// `apns-expiration` in Unix seconds, nil when absent.
    public var expiration: Int64?
    /// Nil for a No Message Stored channel (nothing kept); else how long an offline device's copy
    /// is kept at most, in seconds.
    public var storageLimitSeconds: Double?
    /// The payload as sent (an ActivityKit update).
    public var body: [UInt8]

    public init(
        seq: UInt64, channelID: String, priority: Int = 10, expiration: Int64? = nil,
        storageLimitSeconds: Double?, body: [UInt8]
    ) {
        self.seq = seq
        self.channelID = channelID
        self.priority = priority
        self.expiration = expiration
        self.storageLimitSeconds = storageLimitSeconds
        self.body = body
    }

    /// The push each subscribed device receives, before it gets its own id: push type
    /// `liveactivity`, the broadcast's priority, and, on a No Message Stored channel,
    /// `apns-expiration` 0 (one attempt, no storage), else the broadcast's expiration with the
    /// channel's storage limit.
    public var push: DevicePush {
        var push = DevicePush(
            id: seq, pushType: .liveactivity, priority: priority,
            expiration: storageLimitSeconds == nil ? 0 : expiration, body: body)
        push.storageLimitSeconds = storageLimitSeconds
        return push
    }
}
