import APNsCore
import Synchronization

/// The channels of every app and environment: create, read, delete, list (Apple, *Sending
/// channel management requests to APNs*; docs/broadcast.md §A2, §A5). Thread-safe.
///
/// - IDs are random base64 text (16 random bytes by default, 24 characters), never asked for
///   and never issued twice, not even after a delete: every ID issued is remembered.
/// - At most `limit` live channels per app and environment (Apple: 10,000); a create past it
///   fails with `CannotCreateChannelConfig`. A delete frees a place.
/// - A channel's storage policy is set at creation and has no setter.
public final class ChannelStore: Sendable {
    /// Live channels per app and environment (the default, Apple's, is 10,000).
    public let limit: Int
    private let makeID: @Sendable () -> String
    private let state = Mutex(State())

    /// The channels of one app in one environment, in creation order.
    private struct AppChannels {
        var byID: [String: Channel] = [:]
        var order: [String] = []
    }

    private struct AppKey: Hashable {
        var bundleID: String
        var environment: APNsEnvironment
    }

    private struct State {
        var apps: [AppKey: AppChannels] = [:]
        /// Every ID ever issued, live or deleted.
        var issued: Set<String> = []
    }

    /// - Parameters:
    ///   - limit: live channels per app and environment, at least 1.
    ///   - makeID: a new candidate ID; one already issued is thrown away and another asked for
    ///     (tests inject a fixed sequence). Default: 16 random bytes in base64.
    public init(limit: Int = 10_000, makeID: (@Sendable () -> String)? = nil) {
        self.limit = max(1, limit)
        self.makeID = makeID ?? ChannelStore.randomID
    }

    /// Creates a channel; `CannotCreateChannelConfig` when the app already has `limit` in
    /// this environment.
    public func create(
        bundleID: String, environment: APNsEnvironment, policy: MessageStoragePolicy, nowMilliseconds: Int64
    ) -> Result<Channel, BroadcastReason> {
        state.withLock { state in
            let key = AppKey(bundleID: bundleID, environment: environment)
            var app = state.apps[key] ?? AppChannels()
            guard app.order.count < limit else { return .failure(.cannotCreateChannelConfig) }
            var id = makeID()
            while state.issued.contains(id) { id = makeID() }
            state.issued.insert(id)
            let channel = Channel(
                id: id, bundleID: bundleID, environment: environment, storagePolicy: policy,
                createdAtMilliseconds: nowMilliseconds)
            app.byID[id] = channel
            app.order.append(id)
            state.apps[key] = app
            return .success(channel)
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
            guard var app = state.apps[key], app.byID.removeValue(forKey: id) != nil else { return false }
            app.order.removeAll { $0 == id }
            state.apps[key] = app.order.isEmpty ? nil : app
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

    /// 16 bytes from the system's random source, in standard base64 with padding (Apple's
    /// example ID, `dHN0LXNyY2gtY2hubA==`, is standard base64).
    @Sendable
    static func randomID() -> String {
        var system = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &system) }
        return Base64.encode(bytes)
    }
}
