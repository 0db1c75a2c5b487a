import Synchronization

/// The device tokens MockAPNs knows, keyed by lowercase token. Filled from the configuration and
/// changed through the control API; read by validation on every push (`lookup`).
public final class DeviceRegistry: Sendable {
    /// Keyed cheaply (`DeviceTokenKey`): `lookup` runs on every push.
    private let devices: Mutex<[DeviceTokenKey: DeviceRegistration]>
    private let changes = Atomic<UInt64>(0)

    /// Creates a registry holding `devices` (tokens lowercased; a later duplicate replaces an
    /// earlier one).
    public init(devices: [DeviceRegistration] = []) {
        var table: [DeviceTokenKey: DeviceRegistration] = [:]
        table.reserveCapacity(devices.count)
        for var device in devices {
            device.token = device.token.lowercased()
            table[DeviceTokenKey(device.token)] = device
        }
        self.devices = Mutex(table)
    }

    /// A number that changes whenever a registration is added, replaced or removed (not by
    /// lookups); read without the lock. A verdict computed when it had some value holds for the
    /// same request while it keeps that value (`PreviousRequest`'s repeated pushes). Read it before
    /// the lookups it vouches for: a change made meanwhile then shows as a new value next time.
    public var generation: UInt64 { changes.load(ordering: .acquiring) }

    /// The registration of `token`, or `nil` when unknown. Hot path: one dictionary lookup under
    /// the lock. Pass the token lowercase (as `ValidationResult.deviceToken` is); a token with uppercase
    /// letters is lowercased and retried, which costs an allocation on that path only.
    public func lookup(_ token: String) -> DeviceRegistration? {
        let (found, isEmpty) = devices.withLock { table -> (DeviceRegistration?, Bool) in
            table.isEmpty ? (nil, true) : (table[DeviceTokenKey(token)], false)
        }
        if found != nil || isEmpty { return found }
        var token = token
        // Through the contiguous buffer: iterating `String.UTF8View` costs ~100 ns here.
        guard token.withUTF8({ $0.contains { $0 >= 0x41 && $0 <= 0x5A } }) else { return nil }
        let lower = token.lowercased()
        return devices.withLock { $0[DeviceTokenKey(lower)] }
    }

    /// Every registration, sorted by token.
    public func all() -> [DeviceRegistration] {
        devices.withLock { Array($0.values) }.sorted { $0.token < $1.token }
    }

    /// One page of the registrations in token order: at most `limit` of those whose token sorts
    /// after `after` (lowercase; nil: from the first); `more` is true when others follow, `total`
    /// counts every registration. A page much smaller than the table is picked in one pass
    /// under the lock (the `limit + 1` smallest tokens kept sorted, about n comparisons: 20-35 ms
    /// with 100,000 registrations, docs/device-model.md §7); a large one sorts the candidates.
    public func page(after: String?, limit: Int) -> (registrations: [DeviceRegistration], more: Bool, total: Int) {
        let limit = max(limit, 0)
        return devices.withLock { table in
            // One more than the page tells whether others follow.
            let keep = limit == Int.max ? limit : limit + 1
            var best: [String]
            if keep <= table.count / 8 {
                best = []
                best.reserveCapacity(keep)
                for key in table.keys {
                    let token = key.token
                    if let after, token <= after { continue }
                    if best.count == keep, token >= best[keep - 1] { continue }
                    var low = 0
                    var high = best.count
                    while low < high {
                        let middle = (low + high) / 2
                        if best[middle] < token { low = middle + 1 } else { high = middle }
                    }
                    best.insert(token, at: low)
                    if best.count > keep { best.removeLast() }
                }
            } else {
                let tokens = table.keys.map(\.token)
                best = (after.map { after in tokens.filter { $0 > after } } ?? tokens).sorted()
            }
            let more = best.count > limit
            return (best.prefix(limit).compactMap { table[DeviceTokenKey($0)] }, more, table.count)
        }
    }

    /// The number of registrations.
    public var count: Int { devices.withLock { $0.count } }

    /// Adds or replaces the registration of `device.token` (lowercased). Returns true when the
    /// token was new, false when an existing registration was replaced.
    @discardableResult
    public func put(_ device: DeviceRegistration) -> Bool {
        var device = device
        device.token = device.token.lowercased()
        let old = devices.withLock { table in
            defer { changes.add(1, ordering: .releasing) }
            return table.updateValue(device, forKey: DeviceTokenKey(device.token))
        }
        return old == nil
    }

    /// Removes the registration of `token` (any letter case). Returns false when it was unknown.
    @discardableResult
    public func remove(token: String) -> Bool {
        let lower = token.lowercased()
        return devices.withLock { table in
            defer { changes.add(1, ordering: .releasing) }
            return table.removeValue(forKey: DeviceTokenKey(lower))
        } != nil
    }

    /// Removes every registration and returns how many there were.
    @discardableResult
    public func clear() -> Int {
        let old = devices.withLock { table -> [DeviceTokenKey: DeviceRegistration] in
            let old = table
            table = [:]
            changes.add(1, ordering: .releasing)
            return old
        }
        return old.count
    }
}
