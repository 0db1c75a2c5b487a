import Synchronization

/// Every connection event, newest last, in a bounded ring (`maxEvents`): when full, each append
/// evicts the oldest. Thread-safe: workers append, the control API reads.
///
/// Sequence numbers count from 1 and never repeat or go back, not even across `clear()`, like
/// `DeliveryStore`'s (but their own: an event's `seq` is not a delivery's). Events are rare next
/// to requests (a few per connection), so queries simply scan under the lock.
public final class ConnectionEventStore: Sendable {
    /// The number of events the ring holds before it evicts.
    public let capacity: Int

    private let state: Mutex<State>
    /// Changes on every append and clear; read without the lock by waiters.
    private let generationAtomic = Atomic<UInt64>(0)

    private struct State {
        var ring: SequenceRing<ConnectionEvent>
        var byKind: [ConnectionEventKind: UInt64] = [:]
    }

    /// Creates an empty store holding at most `capacity` events (at least 1).
    public init(capacity: Int = 10_000) {
        let ring = SequenceRing<ConnectionEvent>(capacity: capacity)
        self.capacity = ring.capacity
        state = Mutex(State(ring: ring))
    }

    /// Stores `event` with the next sequence number (its `seq` is overwritten) and returns that
    /// number; evicts the oldest event when the ring is full.
    @discardableResult
    public func append(_ event: ConnectionEvent) -> UInt64 {
        var event = event
        let (seq, evicted) = state.withLock { state -> (UInt64, ConnectionEvent?) in
            event.seq = state.ring.nextSeq
            state.byKind[event.kind, default: 0] &+= 1
            let evicted = state.ring.append(event)
            generationAtomic.add(1, ordering: .releasing)
            return (event.seq, evicted)
        }
        _ = evicted  // released here, outside the lock
        return seq
    }

    /// Empties the ring (`DELETE /v1/events`) and returns how many events it removed. Sequence
    /// numbers keep increasing; `evicted` restarts at 0; totals by kind are kept.
    @discardableResult
    public func clear() -> Int {
        let old = state.withLock { state -> [ConnectionEvent] in
            generationAtomic.add(1, ordering: .releasing)
            return state.ring.removeAll()
        }
        return old.count
    }

    /// The sequence number of the newest event ever appended (0 before the first).
    public var lastSeq: UInt64 { state.withLock { $0.ring.lastSeq } }

    /// A number that changes whenever an event is appended or the store is cleared; read
    /// without the lock, so a waiter can skip work when nothing changed.
    public var generation: UInt64 { generationAtomic.load(ordering: .acquiring) }

    /// The event with sequence number `seq`, or nil when never stored, evicted or cleared.
    public func event(seq: UInt64) -> ConnectionEvent? {
        state.withLock { $0.ring.element(seq: seq) }
    }

    /// The events matching `filter`, oldest first, at most `limit` of them (the oldest ones;
    /// page on with `after`). `nil` limit means all; a negative limit counts as 0.
    public func query(_ filter: ConnectionEventFilter, limit: Int? = nil) -> ConnectionEventQueryResult {
        state.withLock { state in
            state.ring.query(after: filter.after, limit: limit, where: { _, event in filter.matches(event) }) {
                _, event in
                copy event
            }
        }
    }

    /// Totals since start plus the ring's current fill.
    public func stats() -> ConnectionEventStats {
        state.withLock { state in
            ConnectionEventStats(
                recorded: state.ring.lastSeq, byKind: state.byKind, records: state.ring.count,
                evicted: state.ring.evicted, lastSeq: state.ring.lastSeq, capacity: capacity)
        }
    }
}
