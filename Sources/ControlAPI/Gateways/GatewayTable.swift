/// The isolated gateways a server holds (docs/testing.md "Isolated gateways"), as pure
/// bookkeeping: ids (`g1`, `g2`, … in creation order, never reused), the cap, and the idle TTL.
/// A slot is reserved before its gateway is made (so that two creations cannot both pass the
/// cap) and filled, or cancelled, after. Times are seconds since the Unix epoch. Not thread-safe:
/// its owner locks.
public struct GatewayTable<Value> {
    /// One gateway's bookkeeping.
    public struct Entry {
        /// `g1`, `g2`, …
        public var id: String
        /// The name asked for at creation, nil when none was (the gateway is then named by its id).
        public var name: String?
        /// The gateway, nil while its slot is only reserved.
        public var value: Value?
        /// Seconds untouched after which it expires; 0: never.
        public var ttlSeconds: Int
        /// When it was last touched.
        public var lastActive: Double
        /// The activity count last observed (`observe`); 0 at first: a new gateway has no records or events.
        var seenActivity: UInt64 = 0

        /// When it expires if untouched meanwhile, or nil when it never does.
        public var expiresAt: Double? { ttlSeconds > 0 ? lastActive + Double(ttlSeconds) : nil }
    }

    /// The most gateways held at once, reserved slots included.
    public let capacity: Int
    private var entries: [String: Entry] = [:]
    /// Ids in creation order.
    private var order: [String] = []
    private var nextNumber = 1

    /// An empty table holding at most `capacity` gateways (0: none can be made).
    public init(capacity: Int) { self.capacity = max(0, capacity) }

    /// Gateways held (reserved slots included).
    public var count: Int { entries.count }

    /// Reserves a slot: the new id, or nil when `capacity` are held. `name`: the name asked for
    /// (check it first with `holder(ofName:)`), nil for none.
    public mutating func reserve(ttlSeconds: Int, now: Double, name: String? = nil) -> String? {
        guard entries.count < capacity else { return nil }
        let id = "g" + String(nextNumber)
        nextNumber += 1
        entries[id] = Entry(id: id, name: name, value: nil, ttlSeconds: ttlSeconds, lastActive: now)
        order.append(id)
        return id
    }

    /// The id of the held gateway (reserved or filled) named `name`, or nil: a live gateway's
    /// name is unique (`POST /v1/gateways` answers 409 for a second). A gateway made without a
    /// name is named by its id, so an id counts as a name too.
    public func holder(ofName name: String) -> String? {
        order.first { id in entries[id].map { ($0.name ?? $0.id) == name } ?? false }
    }

    /// Fills the slot `id` reserved with `value`, its TTL counted from `now`.
    public mutating func fill(_ id: String, with value: Value, now: Double) {
        guard entries[id] != nil else { return }
        entries[id]?.value = value
        entries[id]?.lastActive = now
    }

    /// Removes `id` (reserved or filled); its value, or nil when it held none.
    @discardableResult
    public mutating func remove(_ id: String) -> Value? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        order.removeAll { $0 == id }
        return entry.value
    }

    /// The filled entry `id`, or nil.
    public func entry(_ id: String) -> Entry? {
        guard let entry = entries[id], entry.value != nil else { return nil }
        return entry
    }

    /// The filled entries, in creation order.
    public var filled: [Entry] { order.compactMap { entries[$0] }.filter { $0.value != nil } }

    /// `id` was used (a control request under its base): its TTL starts again at `now`.
    public mutating func touch(_ id: String, now: Double) {
        guard entries[id]?.value != nil else { return }
        entries[id]?.lastActive = now
    }

    /// `id`'s activity count (records and events changed: a push, a connection) is `activity`:
    /// when it moved since the last observation, its TTL starts again at `now`.
    public mutating func observe(_ id: String, activity: UInt64, now: Double) {
        guard let entry = entries[id], entry.value != nil else { return }
        if entry.seenActivity != activity { entries[id]?.lastActive = now }
        entries[id]?.seenActivity = activity
    }

    /// The filled gateways untouched for their TTL at `now`, in creation order.
    public func expired(now: Double) -> [String] {
        filled.filter { entry in entry.expiresAt.map { now >= $0 } ?? false }.map(\.id)
    }
}
