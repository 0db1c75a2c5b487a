import APNsCore
import JSONInput
import Synchronization

/// The server's virtual devices and what happened to each push sent to them (docs/device-model.md
/// §7): one `DeviceLifecycle` per registered token, and per accepted push (keyed by its delivery
/// record's `seq`) the timestamped transitions, the device's reaction and the user's interactions.
/// Thread-safe: the push path (`receive`) runs on every worker thread, the control API on its own.
///
/// Time is the server's movable clock (`clock`, the one `/v1/clock` moves): every step on a device
/// first catches its lifecycle up with it (`DeviceLifecycle.advance(to:)`), reads of one device or
/// notification catch that device up, and `catchUp()` (a clock move, a list, a wait) catches up
/// every device, so moving the clock forward runs what fell due (an expiration, a burst, the
/// budget freeing) at the time it fell due.
///
/// The push path pays one check for a token that is not a virtual device: `isEmpty` (an atomic
/// load) when no device is registered, a dictionary lookup under the lock otherwise.
///
/// Broadcasts (docs/broadcast.md §5): a device's `channels` subscribe it; `fanOut(_:)` gives a
/// broadcast's record one notification per subscribed device. Those notifications are keyed by
/// ids of their own, `fanOutIDBase` and up (2^52: above any record seq a run reaches, and exact
/// as a JavaScript number), with the record's
/// seq in `Notification.broadcast`: `fanOut(of:)` finds them by that seq, `notification(_:)` by
/// their id, as the device view (`stored`, `delivered`, `shown`) names them. A device push pays
/// nothing for this: the subscriptions are read only by a broadcast.
public final class DeviceBook: Sendable {
    /// What happened to one accepted push to a virtual device.
    public struct Notification: Sendable, Equatable {
        /// The device's token.
        public var token: String
        /// The push type the gateway's rules used.
        public var pushType: PushType
        /// `apns-priority` (10 when absent).
        public var priority: Int
        /// Its transitions, oldest first (Received, then Delivered, Stored, Discarded, Replaced).
        public var events: [LifecycleEvent]
        /// The user's taps, actions and dismissals of it, oldest first.
        public var interactions: [InteractionOutcome]
        /// The notification that replaced this delivered one in Notification Center by
        /// `apns-collapse-id` (docs/device-model.md §2.4): on the device, not in the lifecycle,
        /// which stays Delivered as Apple's console reports it.
        public var replacedOnDeviceBy: UInt64?
        /// The broadcast's record seq when this is one device's copy of a broadcast (its own id
        /// is then `fanOutIDBase` or above); nil for a push to the device.
        public var broadcast: UInt64?
        /// Its id: the record's seq for a push, `fanOutIDBase` and up for a broadcast's copy.
        public var id: UInt64 = 0

        /// The state it is in now: that of its last transition.
        public var state: LifecycleState? { events.last?.state }
        /// What the device did with it, once delivered.
        public var reaction: DeviceReaction? { events.last { $0.reaction != nil }?.reaction }
    }

    /// One device's lifecycle, boxed: the table's buckets hold a reference rather than the
    /// ~500-byte lifecycle, so the table's slack costs 8 bytes a bucket (memory per device, §7).
    /// Touched only under the book's lock.
    private final class Entry {
        var lifecycle: DeviceLifecycle
        init(_ lifecycle: DeviceLifecycle) { self.lifecycle = lifecycle }
    }

    private struct State {
        /// Keyed cheaply (`DeviceTokenKey`): the push path looks a token up on every push to a device.
        var devices: [DeviceTokenKey: Entry] = [:]
        var notifications: [UInt64: Notification] = [:]
        /// The notifications' seqs in arrival order, from `head`, for the capacity.
        var order: [UInt64] = []
        var head = 0
        /// No device has anything falling due before this (a lower bound, on the server clock):
        /// a `catchUp()` before it has nothing to do and scans no device (docs/device-model.md §7).
        var earliestDue = -Double.infinity
        /// Full scans made by `catchUp` (for tests).
        var scans = 0
        /// The subscribed devices' tokens by channel ID (`VirtualDevice.channels`).
        var subscribers: [String: Set<String>] = [:]
        /// A broadcast's record seq → its notifications' ids, in token order (none: fan-out 0).
        var fanOuts: [UInt64: [UInt64]] = [:]
        /// How many fan-out ids were issued (the last is `fanOutIDBase` plus this).
        var lastFanOutID: UInt64 = 0
    }

    /// The first id of a broadcast's per-device notifications, 2^52: above every record seq (a
    /// server appending a million records a second reaches it after 142 years) and below 2^53,
    /// so a JavaScript client reads it exactly.
    public static let fanOutIDBase: UInt64 = 1 << 52

    private let state = Mutex(State())
    private let deviceCount = Atomic<Int>(0)
    private let received = Atomic<Bool>(false)
    private let changes = Atomic<UInt64>(0)
    /// Storage limit, budget and bursts for every device (docs/device-model.md §5).
    public let options: DeviceModelOptions
    /// At most this many notifications are kept; the oldest go first (as the record store evicts).
    public let notificationCapacity: Int
    private let clock: @Sendable () -> Double

    /// - Parameters:
    ///   - clock: now, in seconds since the Unix epoch on the server's movable clock.
    ///   - notificationCapacity: notifications kept (at least 1), the record store's capacity.
    public init(
        options: DeviceModelOptions = DeviceModelOptions(), notificationCapacity: Int = 100_000,
        clock: @escaping @Sendable () -> Double
    ) {
        self.options = options
        self.notificationCapacity = max(1, notificationCapacity)
        self.clock = clock
    }

    /// True when no virtual device is registered: read without the lock, the push path's one check.
    public var isEmpty: Bool { deviceCount.load(ordering: .relaxed) == 0 }

    /// True once a push to a virtual device was received: records may have lifecycles to join.
    public var hasNotifications: Bool { received.load(ordering: .relaxed) }

    /// A number that changes whenever a device or a notification changes (a long poll on
    /// lifecycle states looks again only then).
    public var generation: UInt64 { changes.load(ordering: .acquiring) }

    /// The number of virtual devices.
    public var count: Int { deviceCount.load(ordering: .relaxed) }

    /// Now on the server's clock, seconds since the Unix epoch.
    public func now() -> Double { clock() }

    // MARK: - Devices

    /// Registers `device`, or updates the device registered under its token
    /// (`DeviceLifecycle.update(_:at:)`: a new connectivity delivers what is stored, and so on).
    /// - Returns: true when the token was new.
    /// - Throws: `InputError` at `topic` or `environment` when a registered device would change
    ///   them; nothing is changed then.
    @discardableResult
    public func put(_ device: VirtualDevice) throws(InputError) -> Bool {
        let now = clock()
        return try state.withLock { (state: inout State) throws(InputError) -> Bool in
            guard let entry = state.devices[DeviceTokenKey(device.token)] else {
                state.devices[DeviceTokenKey(device.token)] = Entry(DeviceLifecycle(device: device, options: options))
                subscribe(device.token, to: device.channels, in: &state)
                deviceCount.add(1, ordering: .relaxed)
                changes.add(1, ordering: .releasing)
                return true
            }
            let before = entry.lifecycle.device.channels
            let events = try entry.lifecycle.update(device, at: now)
            if before != device.channels {
                unsubscribe(device.token, from: before, in: &state)
                subscribe(device.token, to: device.channels, in: &state)
            }
            apply(events, to: &state)
            noteDue(entry, at: now, in: &state)
            return false
        }
    }

    /// Removes the virtual device `token` (lowercase); its notifications stay readable, and one it
    /// still stored or held ends as if the app were removed: Discarded - Token Unregistered (From
    /// Storage), stamped now (docs/device-model.md §2.3), not Stored for ever. False when it was
    /// not one.
    @discardableResult
    public func remove(token: String) -> Bool {
        let now = clock()
        return state.withLock { state in
            guard let entry = state.devices.removeValue(forKey: DeviceTokenKey(token)) else { return false }
            unsubscribe(token, from: entry.lifecycle.device.channels, in: &state)
            end(entry, at: now, in: &state)
            deviceCount.subtract(1, ordering: .relaxed)
            changes.add(1, ordering: .releasing)
            return true
        }
    }

    /// Removes every virtual device (their notifications stay readable, what they held ended as
    /// `remove(token:)` ends it); returns how many there were.
    @discardableResult
    public func clear() -> Int {
        let now = clock()
        return state.withLock { state in
            let removed = state.devices.count
            for entry in state.devices.values { end(entry, at: now, in: &state) }
            state.devices = [:]
            state.subscribers = [:]
            deviceCount.store(0, ordering: .relaxed)
            changes.add(1, ordering: .releasing)
            return removed
        }
    }

    /// Forgets every notification (`DELETE /v1/deliveries`: their records are gone, so the
    /// lifecycles joined on them go too, and the metrics count from nothing): the book's
    /// notifications and, on every device, what it stored, held, delivered and showed
    /// (`DeviceLifecycle.forgetNotifications()`, no transition recorded). The devices stay
    /// registered, in their state (connectivity, app state, settings, badge, budget use).
    /// Returns how many notifications were forgotten.
    @discardableResult
    public func clearNotifications() -> Int {
        state.withLock { state in
            let cleared = state.notifications.count
            state.notifications = [:]
            state.order = []
            state.head = 0
            state.fanOuts = [:]
            for entry in state.devices.values { entry.lifecycle.forgetNotifications() }
            received.store(false, ordering: .relaxed)
            changes.add(1, ordering: .releasing)
            return cleared
        }
    }

    /// Ends what a device being removed still stores or holds: the app is gone, and the device
    /// is online so that the attempt is made now.
    private func end(_ entry: Entry, at now: Double, in state: inout State) {
        var gone = entry.lifecycle.device
        gone.installed = false
        gone.connectivity = .online
        guard let events = try? entry.lifecycle.update(gone, at: now) else { return }
        apply(events, to: &state)
    }

    /// Whether `token` (lowercase) is a virtual device.
    public func contains(_ token: String) -> Bool {
        if isEmpty { return false }
        return state.withLock { $0.devices[DeviceTokenKey(token)] != nil }
    }

    /// The lifecycle of `token` (lowercase) caught up with the clock, nil when it is not a virtual device.
    public func lifecycle(of token: String) -> DeviceLifecycle? {
        let now = clock()
        return state.withLock { state in
            catchUp(&state, token: token, to: now)
            return state.devices[DeviceTokenKey(token)]?.lifecycle
        }
    }

    /// Catches every device up with the clock (`DeviceLifecycle.advance(to:)`): called when the
    /// clock moves and before the control API reads.
    ///
    /// Devices are scanned only once something may have fallen due (`State.earliestDue`, kept
    /// from `DeviceLifecycle.nextDueTime(after:)`): a long poll on lifecycle states calls this
    /// every few milliseconds, and with 100,000 devices a scan each time starved the push path.
    /// `force` scans anyway: the clock was moved (backwards too).
    public func catchUp(force: Bool = false) {
        let now = clock()
        state.withLock { state in
            if !force, now < state.earliestDue { return }
            catchUp(&state, to: now)
        }
    }

    /// Full scans `catchUp` has made (tests: a catch-up with nothing due scans nothing).
    var catchUpScans: Int { state.withLock { $0.scans } }

    // MARK: - Pushes

    /// An accepted push (`push.id`: its record's seq) for `token` (lowercase) arrives now. Returns
    /// false, doing nothing, when `token` is not a virtual device.
    @discardableResult
    public func receive(_ push: DevicePush, token: String) -> Bool {
        receive(token: token) { push }
    }

    /// An accepted push for `token` (lowercase) arrives now: `make` (called under the lock, at
    /// most once, and only when `token` is a virtual device) gives it, so the push path builds a
    /// `DevicePush` and looks the token up once (docs/device-model.md §7). Returns false, doing
    /// nothing, when `token` is not a virtual device.
    @discardableResult
    public func receive(token: String, _ make: () -> DevicePush) -> Bool {
        if isEmpty { return false }
        let now = clock()
        return state.withLock { state in
            guard let entry = state.devices[DeviceTokenKey(token)] else { return false }
            receive(make(), by: entry, token: token, broadcast: nil, at: now, in: &state)
            evict(&state)
            return true
        }
    }

    /// A broadcast accepted now reaches every virtual device subscribed to its channel
    /// (docs/broadcast.md §5): each gets its own notification (`broadcast.push`, with an id
    /// from `fanOutIDBase` up) and lifecycle (Received, then Delivered, Stored or Discarded as
    /// its connectivity and the channel's storage policy say), in token order. Returns how
    /// many devices it reached, the record's `fanOut` (0 without subscribers).
    @discardableResult
    public func fanOut(_ broadcast: DeviceBroadcast) -> Int {
        if isEmpty { return 0 }
        let now = clock()
        return state.withLock { state in
            guard let tokens = state.subscribers[broadcast.channelID], !tokens.isEmpty else { return 0 }
            // The payload is read once for every device.
            let template = broadcast.push
            var ids: [UInt64] = []
            ids.reserveCapacity(tokens.count)
            for token in tokens.sorted() {
                guard let entry = state.devices[DeviceTokenKey(token)] else { continue }
                state.lastFanOutID += 1
                var push = template
                push.id = Self.fanOutIDBase + state.lastFanOutID
                receive(push, by: entry, token: token, broadcast: broadcast.seq, at: now, in: &state)
                ids.append(push.id)
            }
            state.fanOuts[broadcast.seq] = ids
            evict(&state)
            return ids.count
        }
    }

    /// The notifications a broadcast's record `seq` fanned out to, in token order, caught up with
    /// the clock; empty when it reached no device (or they were evicted).
    public func fanOut(of seq: UInt64) -> [Notification] {
        let now = clock()
        return state.withLock { state in
            guard let ids = state.fanOuts[seq] else { return [] }
            for id in ids { if let token = state.notifications[id]?.token { catchUp(&state, token: token, to: now) } }
            return ids.compactMap { state.notifications[$0] }
        }
    }

    /// The fan-outs of those `seqs` that reached a device, each in token order, without
    /// catching up (the caller did).
    public func fanOuts(_ seqs: [UInt64]) -> [UInt64: [Notification]] {
        state.withLock { state in
            guard !state.fanOuts.isEmpty else { return [:] }
            var found: [UInt64: [Notification]] = [:]
            for seq in seqs {
                if let ids = state.fanOuts[seq] { found[seq] = ids.compactMap { state.notifications[$0] } }
            }
            return found
        }
    }

    /// The tokens of the virtual devices subscribed to `channelID`, sorted.
    public func subscribers(of channelID: String) -> [String] {
        if isEmpty { return [] }
        return state.withLock { ($0.subscribers[channelID] ?? []).sorted() }
    }

    /// `push` arriving at the device of `entry` now, recorded as its notification (under the
    /// lock): the step's transitions of `push` become its history as they are; the others (what
    /// the step caught up with, one it replaced) are appended to theirs.
    private func receive(
        _ push: DevicePush, by entry: Entry, token: String, broadcast: UInt64?, at now: Double, in state: inout State
    ) {
        // Changed in place: no copy of the lifecycle.
        var events = entry.lifecycle.receive(push, at: now)
        noteDue(entry, at: now, in: &state)
        received.store(true, ordering: .relaxed)
        var own: [LifecycleEvent] = []
        if events.allSatisfy({ $0.notification == push.id }) {
            swap(&own, &events)
        } else {
            own = events.filter { $0.notification == push.id }
            events.removeAll { $0.notification == push.id }
        }
        state.notifications[push.id] = Notification(
            token: token, pushType: push.pushType, priority: push.priority, events: own, interactions: [],
            broadcast: broadcast, id: push.id)
        state.order.append(push.id)
        for event in own { noteCollapse(event, in: &state) }
        if events.isEmpty { changes.add(1, ordering: .releasing) } else { apply(events, to: &state) }
    }

    private func subscribe(_ token: String, to channels: [String], in state: inout State) {
        for channel in channels { state.subscribers[channel, default: []].insert(token) }
    }

    private func unsubscribe(_ token: String, from channels: [String], in state: inout State) {
        for channel in channels {
            state.subscribers[channel]?.remove(token)
            if state.subscribers[channel]?.isEmpty == true { state.subscribers[channel] = nil }
        }
    }

    /// What happened to the push whose record is `seq`, caught up with the clock; nil when it
    /// was not for a virtual device (or was evicted).
    public func notification(_ seq: UInt64) -> Notification? {
        let now = clock()
        return state.withLock { state in
            guard let token = state.notifications[seq]?.token else { return nil }
            catchUp(&state, token: token, to: now)
            return state.notifications[seq]
        }
    }

    /// The notifications of `seqs` that are known, without catching up (the caller did).
    public func notifications(_ seqs: [UInt64]) -> [UInt64: Notification] {
        state.withLock { state in
            var found: [UInt64: Notification] = [:]
            for seq in seqs { if let entry = state.notifications[seq] { found[seq] = entry } }
            return found
        }
    }

    /// The user acts on the shown notification `seq` of `token` now (`DeviceLifecycle.interact`);
    /// the outcome is recorded on the notification. Nil when `token` is not a virtual device.
    /// - Throws: `InputError` as `interact` does (at `notification`, `action` or `text`); nothing
    ///   is changed then.
    public func interact(_ interaction: UserInteraction, with seq: UInt64, token: String) throws(InputError)
        -> InteractionOutcome?
    {
        let now = clock()
        return try state.withLock { (state: inout State) throws(InputError) -> InteractionOutcome? in
            guard let entry = state.devices[DeviceTokenKey(token)] else { return nil }
            let outcome = try entry.lifecycle.interact(interaction, with: seq, at: now)
            noteDue(entry, at: now, in: &state)
            apply(outcome.events, to: &state)
            state.notifications[seq]?.interactions.append(outcome)
            return outcome
        }
    }

    /// Delivery metrics as Apple's console counts them (`DeliveryMetrics`) over the transitions
    /// stamped from `from` to `to` (seconds since the epoch, server clock, both included; nil: open),
    /// caught up with the clock first.
    public func metrics(from: Double? = nil, to: Double? = nil) -> DeliveryMetrics {
        let now = clock()
        return state.withLock { state in
            catchUp(&state, to: now)
            var metrics = DeliveryMetrics()
            for seq in state.order[state.head...] {
                guard let notification = state.notifications[seq] else { continue }
                for event in notification.events {
                    if let from, event.at < from { continue }
                    if let to, event.at > to { continue }
                    metrics.count(event.state, pushType: notification.pushType, priority: notification.priority)
                }
            }
            return metrics
        }
    }

    // MARK: - Internals

    /// Catches the device `token` up with `now`, if it is one.
    private func catchUp(_ state: inout State, token: String, to now: Double) {
        guard let events = state.devices[DeviceTokenKey(token)]?.lifecycle.advance(to: now), !events.isEmpty else {
            return
        }
        apply(events, to: &state)
    }

    private func catchUp(_ state: inout State, to now: Double) {
        var earliest = Double.infinity
        for entry in state.devices.values {
            let events = entry.lifecycle.advance(to: now)
            if !events.isEmpty { apply(events, to: &state) }
            if let due = entry.lifecycle.nextDueTime(after: now) { earliest = min(earliest, due) }
        }
        state.earliestDue = earliest
        state.scans += 1
    }

    /// Lowers the book's `earliestDue` to what `entry` has falling due, after a step on it.
    private func noteDue(_ entry: Entry, at now: Double, in state: inout State) {
        if let due = entry.lifecycle.nextDueTime(after: now), due < state.earliestDue { state.earliestDue = due }
    }

    private func apply(_ events: [LifecycleEvent], to state: inout State) {
        for event in events {
            state.notifications[event.notification]?.events.append(event)
            noteCollapse(event, in: &state)
        }
        changes.add(1, ordering: .releasing)
    }

    /// A delivery that replaced a delivered notification on the device (collapse ID): the device
    /// view of the replaced one says by which.
    private func noteCollapse(_ event: LifecycleEvent, in state: inout State) {
        if case .delivered = event.state, let replaced = event.replaced {
            state.notifications[replaced]?.replacedOnDeviceBy = event.notification
        }
    }

    private func evict(_ state: inout State) {
        while state.order.count - state.head > notificationCapacity {
            if let gone = state.notifications.removeValue(forKey: state.order[state.head]), let seq = gone.broadcast {
                state.fanOuts[seq] = nil
            }
            state.head += 1
        }
        if state.head > 1024, state.head * 2 > state.order.count {
            state.order.removeFirst(state.head)
            state.head = 0
        }
    }
}
