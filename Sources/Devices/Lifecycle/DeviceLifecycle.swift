import APNsCore
import JSONInput

/// The lifecycle of the pushes accepted for one virtual device (docs/device-model.md §2): a state
/// machine whose every step returns the timestamped transitions (`LifecycleEvent`) for the caller
/// to record. Pure: no I/O and no clock of its own; each step takes the time, in seconds since
/// the Unix epoch on the server's movable clock, and first catches up with it (`advance(to:)`:
/// expirations, low-power bursts, the background budget), so a test that moves the clock sees
/// what fell due in between, each at the moment it fell due.
///
/// The clock may be moved backwards (`/v1/clock`; docs/device-model.md §2, "Time"): a step given
/// an earlier time than the device's latest transition handles nothing that is due later, and its
/// transitions are stamped no earlier than that latest one (`latestStamp`): a device's history never
/// runs backwards. The background budget counts only the deliveries at or before the time given,
/// so deliveries stamped in what is now the future do not use it up.
public struct DeviceLifecycle: Sendable {
    /// A notification kept for a later attempt.
    public struct Pending: Sendable, Equatable {
        /// The notification.
        public var push: DevicePush
        /// When it was stored or held.
        public var since: Double
        /// When it expires: `apns-expiration`, or the storage limit, whichever is first; infinity
        /// for a device-side budget hold (§2.6).
        public var deadline: Double
        /// Why it is kept: offline (APNs storage), power (a low-power hold), budget (a device hold).
        public var cause: LifecycleState.StoreCause
    }

    /// A notification on the device, in Notification Center: what a user interaction acts on.
    public struct Shown: Sendable, Equatable {
        /// The notification.
        public var push: DevicePush
        /// When it was delivered.
        public var at: Double
    }

    /// The device as it is now (connectivity and app state change with the steps).
    public private(set) var device: VirtualDevice
    /// Storage limit, budget and bursts (§5).
    public let options: DeviceModelOptions
    /// APNs's one stored notification for the app (§2.1, "one per app per device").
    public private(set) var stored: Pending? {
        get { storedSlot.pending }
        set { storedSlot = PendingSlot(newValue) }
    }
    /// Priority 5 and 1 pushes held while the device is in low power, oldest first (§2.5).
    public private(set) var powerHeld: [Pending] = []
    /// The background push held past the budget (§2.6).
    public private(set) var budgetHeld: Pending? {
        get { budgetHeldSlot.pending }
        set { budgetHeldSlot = PendingSlot(newValue) }
    }
    /// Shown notifications, oldest first: at least the newest `options.historyLimit` (up to an
    /// eighth more before the oldest are dropped).
    public private(set) var shown: [Shown] = []
    /// The ids of the notifications delivered, in order: at least the newest
    /// `options.historyLimit`, as `shown`.
    public private(set) var delivered: [UInt64] = []
    /// The app icon's badge.
    public private(set) var badge = 0
    /// When the held low-power pushes go out, if any are held.
    public private(set) var nextBurstAt: Double?
    /// Delivery times of the last `backgroundBudget` background pushes, on the clock as given
    /// (not clamped to `latestStamp`), oldest first; those after a time the clock was moved back
    /// to are forgotten at the next delivery.
    private var backgroundDeliveries: [Double] = []
    /// The time of this device's latest transition: later transitions are stamped no earlier.
    public private(set) var latestStamp = -Double.infinity
    private var generator: SplitMix64
    /// `stored` and `budgetHeld`, each a pointer: most devices hold neither, and a `Pending` kept
    /// inline (about 150 bytes each, the push and its payload's values) was most of the memory a
    /// registered device costs (docs/device-model.md §7).
    private var storedSlot = PendingSlot.empty
    private var budgetHeldSlot = PendingSlot.empty

    /// A `Pending` or none, boxed when there is one (an indirect case: one pointer wide).
    enum PendingSlot: Sendable {
        case empty
        indirect case held(Pending)

        init(_ pending: Pending?) { self = pending.map { .held($0) } ?? .empty }

        var pending: Pending? {
            if case .held(let pending) = self { return pending }
            return nil
        }
    }

    /// A device with nothing stored, held or shown, its badge at 0; the burst jitter's generator
    /// is seeded with `options.seed`.
    public init(device: VirtualDevice, options: DeviceModelOptions = DeviceModelOptions()) {
        self.device = device
        self.options = options
        generator = SplitMix64(seed: options.seed)
    }

    // MARK: - Steps

    /// An accepted push for this device arrives at `now` (§2.1-§2.6): Received, then Delivered,
    /// Stored or Discarded.
    public mutating func receive(_ push: DevicePush, at now: Double) -> [LifecycleEvent] {
        var events = advance(to: now)
        // Received and what follows (Delivered, Stored or Discarded, a Replaced): one allocation.
        events.reserveCapacity(events.count + 3)
        events.append(LifecycleEvent(notification: push.id, state: .received, at: now))
        if let cause = discardCause(for: push) {
            events.append(event(push, .discarded(cause, fromStorage: false), now))
        } else if device.connectivity == .offline {
            events +=
                push.isOneAttempt(at: now)
                ? [event(push, .discarded(.expired, fromStorage: false), now)]
                : store(pending(push, since: now, cause: .deviceOffline))
        } else if device.connectivity == .lowPower, push.priority != 10 {
            events +=
                push.isOneAttempt(at: now)
                ? [event(push, .discarded(.expired, fromStorage: false), now)]
                : holdForPower(pending(push, since: now, cause: .powerConsiderations))
        } else {
            // Appended in place: no array of its own for the attempt's transitions (§7).
            attempt(push, at: now, fromStorage: false, into: &events)
        }
        stampMonotonic(&events)
        return events
    }

    /// The device goes online, offline or into low power at `now` (§2.1, §2.5). Online delivers
    /// the stored notification and the held ones; low power delivers a stored priority 10 one and
    /// holds a stored priority 5 or 1 one; offline moves the held ones into storage (one kept).
    public mutating func setConnectivity(_ connectivity: Connectivity, at now: Double) -> [LifecycleEvent] {
        var events = advance(to: now)
        device.connectivity = connectivity
        switch connectivity {
        case .online:
            if let pending = stored {
                stored = nil
                events += attempt(pending.push, at: now, fromStorage: true)
            }
            events += releasePowerHeld(at: now)
        case .lowPower:
            if let pending = stored {
                stored = nil
                if pending.push.priority == 10 {
                    events += attempt(pending.push, at: now, fromStorage: true)
                } else {
                    var held = pending
                    held.cause = .powerConsiderations
                    events += holdForPower(held, at: now)
                }
            }
        case .offline:
            let held = powerHeld
            powerHeld = []
            nextBurstAt = nil
            for var pending in held {
                pending.cause = .deviceOffline
                events += store(pending, at: now)
            }
        }
        stampMonotonic(&events)
        return events
    }

    /// The app's state changes at `now` (§2.6): to the foreground delivers a budget-held
    /// background push at once; force-quit or terminated (not running) discards it.
    public mutating func setAppState(_ appState: AppState, at now: Double) -> [LifecycleEvent] {
        var events = advance(to: now)
        let before = device.appState
        device.appState = appState
        if let pending = budgetHeld {
            if appState == .forceQuit || (appState == .notRunning && before != .notRunning) {
                budgetHeld = nil
                events.append(event(pending.push, .discarded(.appTerminated, fromStorage: true), now))
            } else if appState == .foreground {
                budgetHeld = nil
                events += release(pending.push, at: now)
            }
        }
        stampMonotonic(&events)
        return events
    }

    /// Replaces the device's description at `now`: settings, capabilities, categories, the
    /// foreground presentation and `installed` take effect for later pushes; a new connectivity
    /// or app state is applied as `setConnectivity(_:at:)` and `setAppState(_:at:)` apply it.
    /// - Throws: `InputError` at `token`, `topic` or `environment` when `changed` names another
    ///   device (a token keeps its app and environment); nothing is changed then.
    public mutating func update(_ changed: VirtualDevice, at now: Double) throws(InputError) -> [LifecycleEvent] {
        for (path, same) in [
            ("token", changed.token == device.token), ("topic", changed.topic == device.topic),
            ("environment", changed.environment == device.environment),
        ] where !same {
            throw InputError(path: path, message: "cannot change for a registered device; register another device")
        }
        var events = advance(to: now)
        let connectivity = changed.connectivity, appState = changed.appState
        var next = changed
        next.connectivity = device.connectivity
        next.appState = device.appState
        device = next
        if connectivity != device.connectivity { events += setConnectivity(connectivity, at: now) }
        if appState != device.appState { events += setAppState(appState, at: now) }
        stampMonotonic(&events)
        return events
    }

    /// Moves to `now`, handling in time order what fell due (§2.2, §2.5, §2.6): stored and held
    /// notifications whose deadline passed are Discarded - Expired (From Storage) at their
    /// deadline, a low-power burst delivers the held pushes at its time, and a budget-held
    /// background push is delivered when the budget allows it. Expiry wins a tie.
    public mutating func advance(to now: Double) -> [LifecycleEvent] {
        // Most devices hold nothing, so nothing can fall due: no search for a due step.
        if holdsNothing, nextBurstAt == nil { return [] }
        var events: [LifecycleEvent] = []
        while let (time, step) = nextDue(notAfter: now) {
            switch step {
            case .expireStored:
                if let pending = stored {
                    stored = nil
                    events.append(event(pending.push, .discarded(.expired, fromStorage: true), time))
                }
            case .expireHeld(let index):
                let pending = powerHeld.remove(at: index)
                events.append(event(pending.push, .discarded(.expired, fromStorage: true), time))
                if powerHeld.isEmpty { nextBurstAt = nil }
            case .burst:
                events += releasePowerHeld(at: time)
            case .budget:
                if let pending = budgetHeld {
                    budgetHeld = nil
                    events += release(pending.push, at: time)
                }
            }
        }
        stampMonotonic(&events)
        return events
    }

    /// Forgets every notification the device knows of (docs/device-model.md §7, `DELETE
    /// /v1/deliveries`): the stored one, the held ones (and their burst), the delivered and shown
    /// histories, with no transition, as their records are gone. The device itself stays as it
    /// is: connectivity, app state, settings, badge and the background budget's use.
    mutating func forgetNotifications() {
        stored = nil
        powerHeld = []
        nextBurstAt = nil
        budgetHeld = nil
        shown = []
        delivered = []
    }

    /// Takes a shown notification off the device (a user interaction, `interact`).
    mutating func removeShown(at index: Int) -> Shown { shown.remove(at: index) }

    /// Stamps `events` no earlier than the device's latest transition, in order, and moves
    /// `latestStamp` on (docs/device-model.md §2, "Time"): moving the clock back never makes a
    /// device's history run backwards.
    mutating func stampMonotonic(_ events: inout [LifecycleEvent]) {
        for index in events.indices {
            if events[index].at < latestStamp {
                events[index].at = latestStamp
            } else {
                latestStamp = events[index].at
            }
        }
    }

    /// Sets the app state an interaction leads to (used by `interact`), with `setAppState`'s effects.
    mutating func moveApp(to appState: AppState, at now: Double) -> [LifecycleEvent] {
        appState == device.appState ? [] : setAppState(appState, at: now)
    }

    /// The earliest moment at which something pending falls due (a stored or held push's
    /// expiry, the low-power burst, the budget-held push's release), as seen at `now`; nil when
    /// nothing is pending. Moving forward from `now` makes nothing fall due earlier (the budget's
    /// release only moves later as more deliveries fall into the past), so the book can skip a
    /// device until then (`DeviceBook.catchUp`, docs/device-model.md §7).
    @inline(__always)
    public func nextDueTime(after now: Double) -> Double? {
        // Most devices hold nothing: no copy of a pending push (nor, inlined into the book's
        // step, of the lifecycle) is made to find that out.
        if holdsNothing { return nil }
        return pendingDueTime(after: now)
    }

    /// Nothing stored, held for power or held past the budget: nothing can fall due.
    @inline(__always)
    var holdsNothing: Bool {
        if case .empty = storedSlot, powerHeld.isEmpty, case .empty = budgetHeldSlot { return true }
        return false
    }

    /// `nextDueTime(after:)` for a device that holds something.
    private func pendingDueTime(after now: Double) -> Double? {
        var best: Double?
        func consider(_ time: Double?) {
            if let time, best.map({ time < $0 }) ?? true { best = time }
        }
        consider(stored?.deadline)
        for pending in powerHeld { consider(pending.deadline) }
        if device.connectivity == .lowPower { consider(nextBurstAt) }
        consider(budgetReleaseTime(at: now))
        return best
    }

    // MARK: - Rules

    private enum DueStep { case expireStored, expireHeld(Int), burst, budget }

    /// The earliest step due at or before `now`; expiry first on a tie.
    private func nextDue(notAfter now: Double) -> (Double, DueStep)? {
        var best: (Double, DueStep)?
        func consider(_ time: Double?, _ step: DueStep) {
            guard let time, time <= now else { return }
            if best == nil || time < best!.0 { best = (time, step) }
        }
        consider(stored?.deadline, .expireStored)
        for (index, pending) in powerHeld.enumerated() { consider(pending.deadline, .expireHeld(index)) }
        if device.connectivity == .lowPower { consider(nextBurstAt, .burst) }
        consider(budgetReleaseTime(at: now), .budget)
        return best
    }

    /// Why `push` is discarded before any attempt (§2.3): the app is removed, or notifications
    /// are not authorized and it is an alert push; nil when it may be delivered.
    private func discardCause(for push: DevicePush) -> LifecycleState.DiscardCause? {
        if !device.installed { return .tokenUnregistered }
        if push.pushType == .alert, !device.settings.authorized { return .disabled }
        return nil
    }

    /// A delivery attempt (§2.3, §2.6): one from storage meets §2.3 again (the app may have been
    /// removed or notifications disabled meanwhile: Discarded (From Storage)); a background push
    /// to an app in the background, suspended or not running needs budget, and past it is held or
    /// dropped. A force-quit app is not woken (§3.2), so its pushes neither need nor use budget.
    private mutating func attempt(_ push: DevicePush, at now: Double, fromStorage: Bool) -> [LifecycleEvent] {
        var events: [LifecycleEvent] = []
        attempt(push, at: now, fromStorage: fromStorage, into: &events)
        return events
    }

    /// `attempt(_:at:fromStorage:)`, its transitions appended to `events`.
    private mutating func attempt(
        _ push: DevicePush, at now: Double, fromStorage: Bool, into events: inout [LifecycleEvent]
    ) {
        if fromStorage, let cause = discardCause(for: push) {
            events.append(event(push, .discarded(cause, fromStorage: true), now))
            return
        }
        if push.pushType == .background, device.appState != .foreground, device.appState != .forceQuit,
            !budgetAllows(at: now)
        {
            switch options.overBudget {
            case .drop:
                events.append(event(push, .discarded(.backgroundBudget, fromStorage: fromStorage), now))
            case .hold:
                let pending = Pending(push: push, since: now, deadline: .infinity, cause: .backgroundBudget)
                let old = budgetHeld
                budgetHeld = pending
                events += replacing(old?.push.id, with: push, .stored(.backgroundBudget), at: now)
            }
            return
        }
        deliver(push, at: now, fromStorage: fromStorage, into: &events)
    }

    /// Delivers a budget-held push (§2.6), unless §2.3 discards it now.
    private mutating func release(_ push: DevicePush, at now: Double) -> [LifecycleEvent] {
        if let cause = discardCause(for: push) { return [event(push, .discarded(cause, fromStorage: true), now)] }
        var events: [LifecycleEvent] = []
        deliver(push, at: now, fromStorage: true, into: &events)
        return events
    }

    /// Delivery (§2.4, §3): the device handles the push; a shown notification with the same
    /// `apns-collapse-id` is replaced by it in Notification Center. That one stays Delivered (as
    /// Apple's console reports it): the new Delivered names it in `replaced`, and the book shows
    /// the collapse in its device view (`DeviceBook.Notification.replacedOnDeviceBy`).
    /// Its transition is appended to `events`.
    private mutating func deliver(
        _ push: DevicePush, at now: Double, fromStorage: Bool, into events: inout [LifecycleEvent]
    ) {
        let reaction = DeviceReaction(push: push, device: device)
        // A force-quit app is not woken for it (§3.2): no budget used (§2.6).
        let usesBudget = push.pushType == .background && device.appState != .forceQuit
        var replaced: UInt64?
        if let collapseID = push.collapseID, let index = shown.firstIndex(where: { $0.push.collapseID == collapseID }) {
            replaced = shown.remove(at: index).push.id
        }
        if let value = reaction.presentation.badge { badge = value }
        device.appState = reaction.appStateAfter
        if usesBudget {
            // Deliveries after `now` were made before the clock was moved back: forgotten.
            if let last = backgroundDeliveries.last, last > now { backgroundDeliveries.removeAll { $0 > now } }
            backgroundDeliveries.append(now)
            if backgroundDeliveries.count > max(options.backgroundBudget, 0) { backgroundDeliveries.removeFirst() }
        }
        if reaction.presentation.isShown { shown.append(Shown(push: push, at: now)) }
        delivered.append(push.id)
        // The newest `historyLimit` of each (§2.1); trimmed in steps, so the shift is rare.
        let limit = max(options.historyLimit, 1)
        if shown.count > limit + limit / 8 { shown.removeFirst(shown.count - limit) }
        if delivered.count > limit + limit / 8 { delivered.removeFirst(delivered.count - limit) }
        events.append(
            LifecycleEvent(
                notification: push.id, state: .delivered(fromStorage: fromStorage), at: now, replaced: replaced,
                reaction: reaction))
    }

    /// Storage at APNs (§2.1): one notification per app; a newer one replaces it.
    private mutating func store(_ pending: Pending, at now: Double? = nil) -> [LifecycleEvent] {
        let old = stored
        stored = pending
        return replacing(old?.push.id, with: pending.push, .stored(.deviceOffline), at: now ?? pending.since)
    }

    /// A low-power hold (§2.5): the burst is scheduled when the first push is held; a held push
    /// with the same collapse ID is replaced.
    private mutating func holdForPower(_ pending: Pending, at now: Double? = nil) -> [LifecycleEvent] {
        let time = now ?? pending.since
        var old: UInt64?
        if let collapseID = pending.push.collapseID,
            let index = powerHeld.firstIndex(where: { $0.push.collapseID == collapseID })
        {
            old = powerHeld.remove(at: index).push.id
        } else if powerHeld.count >= max(options.lowPowerHoldLimit, 1) {
            // A bound (Apple gives none): the oldest held goes, replaced by the newest, as a
            // store of one per app replaces; a long load test to one device stays bounded.
            old = powerHeld.removeFirst().push.id
        }
        powerHeld.append(pending)
        if nextBurstAt == nil {
            let jitter = options.lowPowerBurstJitterSeconds * generator.nextUnit()
            nextBurstAt = time + options.lowPowerBurstSeconds + jitter
        }
        return replacing(old, with: pending.push, .stored(.powerConsiderations), at: time)
    }

    /// Delivers every held low-power push at `now`, oldest first.
    private mutating func releasePowerHeld(at now: Double) -> [LifecycleEvent] {
        let held = powerHeld
        powerHeld = []
        nextBurstAt = nil
        return held.flatMap { attempt($0.push, at: now, fromStorage: true) }
    }

    /// `push` entering `state`, and the notification it replaced leaving.
    private func replacing(_ old: UInt64?, with push: DevicePush, _ state: LifecycleState, at now: Double)
        -> [LifecycleEvent]
    {
        var events = [LifecycleEvent(notification: push.id, state: state, at: now, replaced: old)]
        if let old { events.append(LifecycleEvent(notification: old, state: .replaced(by: push.id), at: now)) }
        return events
    }

    /// A stored or held notification of `push` from `since` (§2.2): kept until its expiration,
    /// at most `maxStorageSeconds` (or the push's own `storageLimitSeconds`, a broadcast's).
    private func pending(_ push: DevicePush, since: Double, cause: LifecycleState.StoreCause) -> Pending {
        let limit = since + (push.storageLimitSeconds ?? options.maxStorageSeconds)
        let deadline = push.expiration.map { min(Double($0), limit) } ?? limit
        return Pending(push: push, since: since, deadline: deadline, cause: cause)
    }

    /// Whether one more background push fits the budget at `now` (§2.6): fewer than
    /// `backgroundBudget` deliveries in the window ending at `now`, counting only those at or
    /// before `now` (the clock may have been moved back past some).
    private func budgetAllows(at now: Double) -> Bool {
        let budget = options.backgroundBudget
        guard budget > 0 else { return false }
        let window = options.backgroundBudgetWindowSeconds
        let used = backgroundDeliveries.reduce(0) { $0 + ($1 <= now && $1 + window > now ? 1 : 0) }
        return used < budget
    }

    /// When the budget-held push can go out, seen at `now`: once the oldest delivery in the
    /// window leaves it (deliveries after `now` do not count).
    private func budgetReleaseTime(at now: Double) -> Double? {
        guard let pending = budgetHeld, options.backgroundBudget > 0 else { return nil }
        guard device.appState != .forceQuit else { return nil }
        let budget = options.backgroundBudget
        let since = min(pending.since, now)
        let past = backgroundDeliveries.filter { $0 <= now }
        guard past.count >= budget else { return since }
        return max(since, past[past.count - budget] + options.backgroundBudgetWindowSeconds)
    }

    private func event(_ push: DevicePush, _ state: LifecycleState, _ at: Double) -> LifecycleEvent {
        LifecycleEvent(notification: push.id, state: state, at: at)
    }
}
