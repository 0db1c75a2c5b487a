import APNsCore
import Synchronization

/// The channels of every app and environment: create, read, delete, list (Apple, *Sending
/// channel management requests to APNs*; docs/broadcast.md §A2, §A5). Thread-safe.
///
/// - IDs are random base64 text (16 random bytes by default, 24 characters), never asked for
///   and never issued twice, not even after a delete: every ID issued is remembered.
/// - At most `limit` live channels per app and environment (Apple: 10,000), and at most
///   `totalLimit` in all (a bound on the mock's memory: Apple publishes none); a create past
///   either fails with `CannotCreateChannelConfig`. A delete frees a place.
/// - A create or delete changes its app's table in place: an app's table is never copied, so a
///   create costs the same at 9,000 channels as at none (docs/broadcast.md §3, "Channels").
/// - A channel's storage policy is set at creation and has no setter.
public final class ChannelStore: Sendable {
    /// Live channels per app and environment (the default, Apple's, is 10,000).
    public let limit: Int
    /// Live channels in all apps and environments (default 100,000).
    public let totalLimit: Int
    private let makeID: @Sendable () -> String
    private let state = Mutex(State())

    /// The channels of one app in one environment, in creation order.
    private struct AppChannels {
        var byID: [String: Channel] = [:]
        var order: [String] = []

        mutating func add(_ channel: Channel) {
            byID[channel.id] = channel
            order.append(channel.id)
        }

        /// False when `id` was not live.
        mutating func remove(_ id: String) -> Bool {
            guard byID.removeValue(forKey: id) != nil else { return false }
            order.removeAll { $0 == id }
            return true
        }
    }

    private struct AppKey: Hashable {
        var bundleID: String
        var environment: APNsEnvironment
    }

    private struct State {
        var apps: [AppKey: AppChannels] = [:]
        /// Every ID ever issued, live or deleted.
        var issued: Set<String> = []
        /// Live channels in all.
        var live = 0
        /// The channel each answered create made, by the create's record seq (`noteCreated`).
        var createdBySeq: [UInt64: String] = [:]
        /// The seq of the create that made each channel (the same entries, the other way round).
        var createSeqByChannel: [String: UInt64] = [:]
    }

    /// - Parameters:
    ///   - limit: live channels per app and environment, at least 1.
    ///   - totalLimit: live channels in all, at least 1.
    ///   - makeID: a new candidate ID; one already issued is thrown away and another asked for
    ///     (tests inject a fixed sequence). Default: 16 random bytes in base64.
    public init(limit: Int = 10_000, totalLimit: Int = 100_000, makeID: (@Sendable () -> String)? = nil) {
        self.limit = max(1, limit)
        self.totalLimit = max(1, totalLimit)
        self.makeID = makeID ?? ChannelStore.randomID
    }

    /// Creates a channel; `CannotCreateChannelConfig` when the app already has `limit` in
    /// this environment, or the store `totalLimit` in all.
    public func create(
        bundleID: String, environment: APNsEnvironment, policy: MessageStoragePolicy, nowMilliseconds: Int64
    ) -> Result<Channel, BroadcastReason> {
        state.withLock { state in
            let key = AppKey(bundleID: bundleID, environment: environment)
            guard (state.apps[key]?.order.count ?? 0) < limit, state.live < totalLimit else {
                return .failure(.cannotCreateChannelConfig)
            }
            var id = makeID()
            while state.issued.contains(id) { id = makeID() }
            state.issued.insert(id)
            let channel = Channel(
                id: id, bundleID: bundleID, environment: environment, storagePolicy: policy,
                createdAtMilliseconds: nowMilliseconds)
            // In place: a copy of the app's table (`var app = state.apps[key]`, changed, stored
            // back) made each create cost as much as the app had channels.
            state.apps[key, default: AppChannels()].add(channel)
            state.live += 1
            return .success(channel)
        }
    }

    /// Makes the channel `configured` with its own ID (the configuration file's channels, at
    /// start); false, and nothing made, when that ID was ever issued or a limit is reached.
    @discardableResult
    public func add(_ configured: ConfiguredChannel, nowMilliseconds: Int64) -> Bool {
        state.withLock { state in
            let key = AppKey(bundleID: configured.bundleID, environment: configured.environment)
            guard !state.issued.contains(configured.id), (state.apps[key]?.order.count ?? 0) < limit,
                state.live < totalLimit
            else { return false }
            state.issued.insert(configured.id)
            state.apps[key, default: AppChannels()].add(
                Channel(
                    id: configured.id, bundleID: configured.bundleID, environment: configured.environment,
                    storagePolicy: configured.storagePolicy, createdAtMilliseconds: nowMilliseconds))
            state.live += 1
            return true
        }
    }

    /// The live channel `id` of the app in this environment, nil when there is none.
    public func channel(_ id: String, bundleID: String, environment: APNsEnvironment) -> Channel? {
        state.withLock { $0.apps[AppKey(bundleID: bundleID, environment: environment)]?.byID[id] }
    }

    /// Deletes the channel; false when it was not live. Its ID is never issued again.
    @discardableResult
    public func delete(_ id: String, bundleID: String, environment: APNsEnvironment) -> Bool {
        state.withLock { state in
            let key = AppKey(bundleID: bundleID, environment: environment)
            guard state.apps[key]?.remove(id) == true else { return false }
            if state.apps[key]?.order.isEmpty == true { state.apps[key] = nil }
            state.live -= 1
            return true
        }
    }

    /// The app's live channels in this environment, in creation order.
    public func channels(bundleID: String, environment: APNsEnvironment) -> [Channel] {
        state.withLock { state in
            guard let app = state.apps[AppKey(bundleID: bundleID, environment: environment)] else { return [] }
            return app.order.compactMap { app.byID[$0] }
        }
    }

    /// Every live channel, by environment, bundle ID, then creation order (the control API's list).
    public func allChannels() -> [Channel] {
        state.withLock { state in
            state.apps.keys.sorted {
                ($0.environment.rawValue, $0.bundleID) < ($1.environment.rawValue, $1.bundleID)
            }.flatMap { key in
                let app = state.apps[key]!
                return app.order.compactMap { app.byID[$0] }
            }
        }
    }

    /// Notes that the create recorded as `seq` made channel `id`: its record shows the new ID as
    /// its `channelId` (the request named none; docs/broadcast.md §4). One entry per create, kept
    /// as long as the store, as the issued IDs are.
    public func noteCreated(_ id: String, bySeq seq: UInt64) {
        state.withLock { state in
            state.createdBySeq[seq] = id
            state.createSeqByChannel[id] = seq
        }
    }

    /// The seq of the record of the create that made channel `id`, nil when no recorded create
    /// made it (a channel made through the control API or the configuration file, or an unknown
    /// ID). IDs are never issued twice, so there is at most one.
    public func createSeq(of id: String) -> UInt64? {
        state.withLock { $0.createSeqByChannel[id] }
    }

    /// The channel the create recorded as `seq` made, nil when that record made none.
    public func channelCreated(bySeq seq: UInt64) -> String? {
        state.withLock { $0.createdBySeq[seq] }
    }

    /// Whether any create was noted (a list skips the look-ups until one was).
    public var notedCreates: Bool { state.withLock { !$0.createdBySeq.isEmpty } }

    /// 16 bytes from the system's random source, in standard base64 with padding (Apple's
    /// example ID, `dHN0LXNyY2gtY2hubA==`, is standard base64).
    @Sendable
    static func randomID() -> String {
        var system = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &system) }
        return Base64.encode(bytes)
    }
}
