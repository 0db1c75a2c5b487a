import APNsCore
import Synchronization

/// Every request the gateway answered, newest last, in a bounded ring: when full, each append
/// evicts the oldest record.
///
/// Sequence numbers count from 1 and never repeat or go back, not even across `clear()`; the
/// ring therefore always holds a run of consecutive sequence numbers, which makes `record(seq:)`
/// and the `after` filter O(1) to locate.
///
/// Records are kept as `CompactRecord`s (about 300 bytes for a push with a 100-byte payload,
/// against some 1,300 for a `DeliveryRecord`; about 100 for a repeat of its connection's
/// previous push), back to back in `RecordChunk`s of 64 KB, and decoded when read. A chunk is
/// freed when the last of its records is evicted and no stored repeat refers to a record in it.
///
/// `append` is on the per-request hot path: O(1); the record is encoded before the lock is
/// taken, the lock only copies it into the current chunk, and the record it evicts is released
/// after the lock is dropped. Queries scan the compact records under the lock (filters read them
/// in place), copy out only the matching ones (a reference each) and decode them outside the lock.
public final class DeliveryStore: Sendable {
    /// The number of records the ring holds before it evicts.
    public let capacity: Int

    private let state: Mutex<State>
    /// Mirrors of the ring's `lastSeq` and `State.clears`, so waiters can see a change without the lock.
    private let lastSeqAtomic = Atomic<UInt64>(0)
    private let clearsAtomic = Atomic<UInt64>(0)
    /// Mirror of `State.corrections`: records rewritten in place (`markUnanswered`, `markAnswered`).
    private let correctionsAtomic = Atomic<UInt64>(0)
    /// Where every record, correction and clear is also written (`--journal`), or nil. Set once by
    /// `attach(_:restoring:)` before the store is shared with other threads, then only read: on
    /// the push path that costs one load and a branch when there is none.
    nonisolated(unsafe) private var journal: DeliveryJournal?

    /// Creates an empty store holding at most `capacity` records (at least 1).
    public init(capacity: Int = 100_000) {
        let capacity = max(1, capacity)
        self.capacity = capacity
        self.state = Mutex(State(capacity: capacity))
    }

    /// Makes the store write every record, correction and clear to `journal` from now on, after
    /// putting back what `contents` (the journal's earlier history, `JournalReader`) holds: its
    /// records with their sequence numbers, counted by status, reason and series as if appended;
    /// numbering goes on after `contents.lastSeq`. The records put back are not written again.
    /// Call once, before the store is used by other threads (`MockAPNsServer.start`).
    package func attach(_ journal: DeliveryJournal?, restoring contents: JournalContents) {
        state.withLock { state in
            state.ring.restore(startingAfter: contents.firstSeq &- 1)
            for (bytes, _) in contents.records {
                let record = CompactRecord(bytes: bytes)
                let decoded = record.decoded(seq: 0)
                var evicted: CompactRecord?
                _ = place(
                    record, status: decoded.status, reason: decoded.reason, labels: PushLabels(decoded), in: &state,
                    evicted: &evicted, journaling: false)
            }
            state.ring.restore(lastSeq: contents.lastSeq, evicted: contents.evicted)
            state.evictedTotal = contents.evicted
            state.cleared = contents.lastSeq &- UInt64(state.ring.count) &- contents.evicted
            lastSeqAtomic.store(state.ring.lastSeq, ordering: .releasing)
        }
        self.journal = journal
    }

    /// Stores `record` with the next sequence number (its `seq` is overwritten) and returns that
    /// number. Evicts the oldest record when the ring is full. Pass the record as its last use so
    /// it is moved in, not copied.
    @discardableResult
    public func append(_ record: borrowing DeliveryRecord) -> UInt64 {
        let status = record.status
        let reason = record.reason
        let labels = PushLabels(record)
        return CompactRecord.withEncoded(record) { bytes, _ in
            append(bytes, status: status, reason: reason, labels: labels)
        }
    }

    /// Encodes `record` with `ids`, appends it, and calls `body` with the encoded bytes, where
    /// its fields lie and its sequence number, which it returns: `Gateway.handle`'s full-record
    /// path. One concrete call from the Gateway target: calling `CompactRecord.withEncoded`
    /// (generic) from there ran it unspecialized.
    package func append(
        encoding record: borrowing DeliveryRecord, ids: CompactRecord.GeneratedIDs,
        _ body: (UnsafeBufferPointer<UInt8>, CompactRecord.Landmarks, UInt64) -> Void
    ) -> UInt64 {
        let status = record.status
        let reason = record.reason
        let labels = PushLabels(record)
        return CompactRecord.withEncoded(record, ids: ids) { bytes, landmarks in
            let seq = append(bytes, status: status, reason: reason, labels: labels)
            body(bytes, landmarks, seq)
            return seq
        }
    }

    /// Stores a record already in compact form (`CompactRecord.withEncoded`); `status`,
    /// `reason` and `labels` are the record's, for the counts (`stats()`, `pushSeries()`).
    package func append(
        _ bytes: UnsafeBufferPointer<UInt8>, status: Int, reason: Reason?, labels: PushLabels = .unknown
    ) -> UInt64 {
        var evicted: CompactRecord?
        let seq = state.withLock { state -> UInt64 in
            let (chunk, offset) = state.place(bytes.count)
            (chunk.base + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
            return place(
                CompactRecord(chunk: chunk, offset: offset, count: bytes.count), status: status, reason: reason,
                labels: labels, in: &state, evicted: &evicted)
        }
        return seq  // `evicted`, if any, is released here, outside the lock
    }

    /// Stores the record `template` and `rewrite` make of the stored record `modelSeq` (the
    /// template's model) as a repeat of it (a delta of about 60 bytes, `CompactRecord`) and
    /// returns its sequence number; nil, storing nothing, when that record is no longer stored
    /// (evicted or cleared), is itself a repeat or a correction, or is not the template's model. `labels` are the
    /// push's, for `pushSeries()`.
    package func append(
        repeating modelSeq: UInt64, template: CompactRecordTemplate, _ rewrite: CompactRecordTemplate.Rewrite,
        status: Int, reason: Reason?, labels: PushLabels = .unknown
    ) -> UInt64? {
        var evicted: CompactRecord?
        let deltaCount = template.deltaCount(rewrite)
        let seq = state.withLock { state -> UInt64? in
            guard let model = state.ring.element(seq: modelSeq), !model.isRepeat, !model.isCorrection,
                model.count == template.count
            else {
                return nil
            }
            let (chunk, offset) = state.place(deltaCount)
            template.writeDelta(rewrite, to: chunk.base + offset)
            return place(
                CompactRecord(repeating: model, chunk: chunk, offset: offset, deltaCount: deltaCount),
                status: status, reason: reason, labels: labels, in: &state, evicted: &evicted)
        }
        return seq
    }

    /// Corrects the stored record `seq` whose stream ended without response HEADERS: it says
    /// status 0 (`"status": null`), `cause` in `unanswered`, and no reason unless it had one
    /// without a status (a connection-ending credential's, sent in GOAWAY). The counts by status
    /// and reason move with it (`stats()`: from its status to 0). Rare, so not on the push path:
    /// the record is decoded and encoded again, outside the lock, and replaces the stored one.
    /// - Returns: false, changing nothing, when the record is no longer stored (evicted, cleared)
    ///   or already says it went unanswered.
    @discardableResult
    public func markUnanswered(seq: UInt64, cause: UnansweredCause) -> Bool {
        rewrite(seq: seq) { record in
            guard record.unanswered == nil else { return false }
            if record.status != 0 { record.reason = nil }
            record.status = 0
            record.unanswered = cause
            return true
        }
    }

    /// Completes the pending record `seq` (status 0 and no `unanswered` cause: its answer was
    /// held, by a `delay` fault, and its response HEADERS has just been serialized): it says
    /// `answer`'s status and reason from now on, and the counts move from status 0 to it. Until
    /// then `stats()` and a `wait` for that status do not count it. Rare (a delayed answer), so
    /// the record is decoded and encoded again, outside the lock, as `markUnanswered` does.
    /// - Returns: false, changing nothing, when the record is no longer stored, already has a
    ///   status, or already ended unanswered.
    @discardableResult
    public func markAnswered(seq: UInt64, as answer: PendingAnswer) -> Bool {
        rewrite(seq: seq) { record in
            guard record.status == 0, record.unanswered == nil, answer.status != 0 else { return false }
            record.status = answer.status
            record.reason = answer.reason
            return true
        }
    }

    /// Replaces the stored record `seq` by what `change` makes of it (false from `change`: leave
    /// it), moving the counts by status and reason; false when not stored or replaced meanwhile.
    private func rewrite(seq: UInt64, _ change: (inout DeliveryRecord) -> Bool) -> Bool {
        guard let stored = state.withLock({ $0.ring.element(seq: seq) }) else { return false }
        var record = stored.decoded(seq: seq)
        let oldStatus = record.status
        let oldReason = record.reason
        let labels = PushLabels(record)
        guard change(&record) else { return false }
        let newStatus = record.status
        let newReason = record.reason
        var replaced: CompactRecord?
        let done = CompactRecord.withEncoded(record) { bytes, _ -> Bool in
            state.withLock { state -> Bool in
                // Replaced meanwhile (another correction) or gone: leave it.
                guard let current = state.ring.element(seq: seq), current.isSame(as: stored) else { return false }
                let (chunk, offset) = state.place(bytes.count)
                (chunk.base + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                var corrected = CompactRecord(chunk: chunk, offset: offset, count: bytes.count, corrected: true)
                if let journal { journal.append(.correction(seq: seq, corrected)) }
                guard state.ring.replace(seq: seq, swapping: &corrected) else { return false }
                replaced = corrected
                state.corrections += 1
                correctionsAtomic.store(state.corrections, ordering: .releasing)
                state.count(status: oldStatus, by: -1)
                state.count(status: newStatus, by: 1)
                if let oldReason { state.count(reason: oldReason, by: -1) }
                if let newReason { state.count(reason: newReason, by: 1) }
                state.count(series: PushSeries(labels: labels, status: oldStatus, reason: oldReason), by: -1)
                state.count(series: PushSeries(labels: labels, status: newStatus, reason: newReason), by: 1)
                return true
            }
        }
        _ = replaced  // the record replaced, if any, is released here, outside the lock
        return done
    }

    /// Puts `record` in the ring and counts it; the record it evicts, if any, goes to `evicted`
    /// for the caller to release outside the lock.
    private func place(
        _ record: CompactRecord, status: Int, reason: Reason?, labels: PushLabels, in state: inout State,
        evicted: inout CompactRecord?, journaling: Bool = true
    ) -> UInt64 {
        state.count(labels: labels, status: status, reason: reason)
        if status >= 0 && status < state.byStatus.count {
            state.byStatus[status] &+= 1
        } else {
            state.otherStatuses[status, default: 0] &+= 1
        }
        if let reason { state.byReason[reason, default: 0] &+= 1 }
        // Under the lock, so the journal gets records in seq order.
        if journaling, let journal { journal.append(.record(seq: state.ring.nextSeq, record)) }
        var record = record
        if state.ring.append(swapping: &record) {  // `record` leaves holding the evicted one
            evicted = record
            state.evictedTotal &+= 1
        }
        lastSeqAtomic.store(state.ring.lastSeq, ordering: .releasing)
        return state.ring.lastSeq
    }

    /// Empties the ring (`DELETE /v1/deliveries`) and returns how many records it removed.
    ///
    /// Sequence numbers keep increasing after a clear. The `evicted` count restarts at 0: a clear
    /// removes records on purpose and so is not an eviction, and a test that clears first then
    /// sees `evicted: 0` unless its own traffic overflowed the ring. Request totals and the
    /// counts by status and reason are since start and are not reset.
    @discardableResult
    public func clear() -> Int {
        var fresh: [CompactRecord] = []
        fresh.reserveCapacity(min(capacity, State.firstBlock))
        let old = state.withLock { state -> [CompactRecord] in
            state.ring.removeAll(swapping: &fresh)  // `fresh` now holds the old records
            state.cleared &+= UInt64(fresh.count)
            if let journal { journal.append(.clear(lastSeq: state.ring.lastSeq)) }
            state.clears += 1
            clearsAtomic.store(state.clears, ordering: .releasing)
            return fresh
        }
        return old.count  // the old records are released here, outside the lock
    }

    /// The sequence number of the newest record ever appended (0 before the first), including
    /// records since evicted or cleared. Read without taking the lock.
    public var lastSeq: UInt64 { lastSeqAtomic.load(ordering: .acquiring) }

    /// A number that changes whenever a record is appended or corrected or the store is cleared;
    /// read without the lock. A waiter compares it with the value it saw last and skips work when equal.
    public var generation: UInt64 {
        lastSeqAtomic.load(ordering: .acquiring) &+ clearsAtomic.load(ordering: .acquiring)
            &+ correctionsAtomic.load(ordering: .acquiring)
    }

    /// The record with sequence number `seq`, or `nil` when it was never stored, was evicted or
    /// was cleared.
    public func record(seq: UInt64) -> DeliveryRecord? {
        let compact = state.withLock { $0.ring.element(seq: seq) }
        return compact?.decoded(seq: seq)
    }

    /// The records matching `filter`, oldest first, at most `limit` of them (the oldest ones;
    /// page on with `after`). `nil` limit means all; a negative limit counts as 0.
    public func query(_ filter: DeliveryFilter, limit: Int? = nil) -> DeliveryQueryResult {
        compactQuery(filter, limit: limit).map { $0.record.decoded(seq: $0.seq) }
    }

    /// `query` without decoding: the matching compact records with their sequence numbers.
    package func compactQuery(_ filter: DeliveryFilter, limit: Int? = nil) -> CompactQueryResult {
        let matcher = CompactRecordMatcher(filter)
        return state.withLock { state in
            state.ring.query(
                after: filter.after, limit: limit, where: { seq, record in matcher.matches(record, seq: seq) }
            ) {
                seq, record in (seq, copy record)
            }
        }
    }

    /// How many stored records match `filter`.
    public func count(matching filter: DeliveryFilter) -> Int {
        let matcher = CompactRecordMatcher(filter)
        return state.withLock { state in
            state.ring.count(after: filter.after) { seq, record in matcher.matches(record, seq: seq) }
        }
    }

    /// Counts, for an incremental waiter, the records matching `filter` appended after
    /// `afterSeq`; when the store was cleared or a record corrected since `clears` (the waiter's
    /// last view: clears plus corrections, as this returns it) it counts every stored match
    /// instead and says `restarted` (a corrected record may match now, or no longer). Returns
    /// the `lastSeq` and the clears-plus-corrections count the answer is consistent with.
    package func countMatching(_ filter: DeliveryFilter, clears: UInt64, afterSeq: UInt64)
        -> (count: Int, restarted: Bool, lastSeq: UInt64, clears: UInt64)
    {
        let matcher = CompactRecordMatcher(filter)
        return state.withLock { state in
            let epoch = state.clears &+ state.corrections
            let restarted = epoch != clears
            let after = max(filter.after ?? 0, restarted ? 0 : afterSeq)
            let n = state.ring.count(after: after) { seq, record in matcher.matches(record, seq: seq) }
            return (n, restarted, state.ring.lastSeq, epoch)
        }
    }

    /// The compact records matching `filter` appended after `afterSeq`, for an incremental
    /// waiter (a pending `POST /v1/verify`); when the store was cleared or a record corrected
    /// since `epoch` (the waiter's last view: clears plus corrections, as this returns it) every
    /// stored match instead, saying `restarted`. Also the oldest seq held (`firstSeq`: matches
    /// numbered below it are gone), the `lastSeq` and the epoch the answer is consistent with.
    /// The records are copied out under the lock (references to their chunks), to decode outside it.
    /// At most `limit` records (nil: all); `more` says others matched after the last one returned.
    package func compactMatches(_ filter: DeliveryFilter, epoch: UInt64, afterSeq: UInt64, limit: Int? = nil)
        -> (
            elements: [(seq: UInt64, record: CompactRecord)], more: Bool, restarted: Bool, firstSeq: UInt64,
            lastSeq: UInt64, epoch: UInt64
        )
    {
        let matcher = CompactRecordMatcher(filter)
        return state.withLock { state in
            let current = state.clears &+ state.corrections
            let restarted = current != epoch
            let after = max(filter.after ?? 0, restarted ? 0 : afterSeq)
            let result = state.ring.query(
                after: after, limit: limit, where: { seq, record in matcher.matches(record, seq: seq) }
            ) { seq, record in (seq, copy record) }
            return (result.elements, result.more, restarted, result.firstSeq, result.lastSeq, current)
        }
    }

    /// Totals since start plus the ring's current fill.
    public func stats() -> DeliveryStats {
        state.withLock { state in
            var byStatus = state.otherStatuses
            for (status, n) in state.byStatus.enumerated() where n > 0 { byStatus[status] = n }
            return DeliveryStats(
                requests: state.ring.lastSeq, byStatus: byStatus, byReason: state.byReason,
                records: state.ring.count, evicted: state.ring.evicted,
                lastSeq: state.ring.lastSeq, capacity: capacity, cleared: state.cleared,
                evictedTotal: state.evictedTotal)
        }
    }

    /// Records appended since start by series (`PushSeries`: labels, status, reason), not reset
    /// by `clear()`; a correction (`markUnanswered`, `markAnswered`) moves its record from one
    /// series to another, as it moves the counts by status and reason in `stats()`, so the
    /// series sum to `stats().requests`, and by status to `stats().byStatus`. Series whose
    /// count fell to 0 are left out. `GET /metrics`'s `mock_apns_pushes_total`.
    public func pushSeries() -> [(series: PushSeries, count: UInt64)] {
        state.withLock { state in
            zip(state.seriesKeys, state.seriesCounts).filter { $0.1 > 0 }.map { ($0.0, $0.1) }
        }
    }
}

extension DeliveryStore {
    /// Everything behind the lock.
    fileprivate struct State {
        var ring: SequenceRing<CompactRecord>
        var clears: UInt64 = 0
        /// Records rewritten in place since start (`markUnanswered`, `markAnswered`).
        var corrections: UInt64 = 0
        /// Records removed by `clear()` since start (`DeliveryStats.cleared`).
        var cleared: UInt64 = 0
        /// Records evicted by the full ring since start, across clears (`DeliveryStats.evictedTotal`).
        var evictedTotal: UInt64 = 0
        /// Counts for statuses 0..<600 by index: an array bump is cheaper than hashing.
        var byStatus = [UInt64](repeating: 0, count: 600)
        var otherStatuses: [Int: UInt64] = [:]
        var byReason: [Reason: UInt64] = [:]
        /// Records by series (`pushSeries()`): the counts and the series by index, the index by
        /// series, and the index counted last, which a run of like pushes bumps without hashing.
        var seriesCounts: [UInt64] = []
        var seriesKeys: [PushSeries] = []
        var seriesIndex: [PushSeries: Int] = [:]
        var lastSeries = -1
        /// The series `lastSeries` counts, field by field: compared in place, with no copy.
        var lastLabels = PushLabels.unknown
        /// -1 before the first count: no record has that status.
        var lastStatus = -1
        var lastReason: Reason?
        /// The chunk appends go to.
        var chunk = RecordChunk(capacity: RecordChunk.size)

        /// Adds `delta` to the count of `status` (`markUnanswered`).
        mutating func count(status: Int, by delta: Int) {
            if status >= 0 && status < byStatus.count {
                byStatus[status] = UInt64(max(0, Int64(byStatus[status]) + Int64(delta)))
            } else {
                let n = Int64(otherStatuses[status, default: 0]) + Int64(delta)
                otherStatuses[status] = n > 0 ? UInt64(n) : nil
            }
        }

        /// Adds 1 to the count of the series of `labels`, `status` and `reason`: on the push
        /// path, so the series counted last is compared first, field by field (no hash, no
        /// copy, for a run of like pushes).
        @inline(__always)
        mutating func count(labels: PushLabels, status: Int, reason: Reason?) {
            if status == lastStatus && reason == lastReason && labels.priority == lastLabels.priority
                && labels.pushType == lastLabels.pushType && labels.environment == lastLabels.environment
                && labels.listener == lastLabels.listener
            {
                seriesCounts[lastSeries] &+= 1
                return
            }
            count(series: PushSeries(labels: labels, status: status, reason: reason), by: 1)
        }

        /// Adds `delta` to the count of `series` (never below 0) and makes it the last counted.
        mutating func count(series: PushSeries, by delta: Int) {
            let index: Int
            if let known = seriesIndex[series] {
                index = known
            } else {
                index = seriesKeys.count
                seriesKeys.append(series)
                seriesCounts.append(0)
                seriesIndex[series] = index
            }
            seriesCounts[index] = UInt64(max(0, Int64(seriesCounts[index]) + Int64(delta)))
            lastSeries = index
            lastLabels = series.labels
            lastStatus = series.status
            lastReason = series.reason
        }

        /// Adds `delta` to the count of `reason` (`markUnanswered`).
        mutating func count(reason: Reason, by delta: Int) {
            let n = Int64(byReason[reason, default: 0]) + Int64(delta)
            byReason[reason] = n > 0 ? UInt64(n) : nil
        }

        /// Slots reserved up front: a large bound should not cost its memory before it is used.
        static let firstBlock = 65_536

        init(capacity: Int) {
            ring = SequenceRing(capacity: capacity, reserving: State.firstBlock)
        }

        /// Room for a record of `count` bytes: the chunk and offset to write it at. A record
        /// larger than `RecordChunk.largeRecord` gets a chunk of its own; otherwise, when the
        /// current chunk is too full, a new one replaces it (the old one lives on in its records).
        mutating func place(_ count: Int) -> (RecordChunk, Int) {
            if count > RecordChunk.largeRecord {
                let own = RecordChunk(capacity: count)
                return (own, own.claim(count))
            }
            if chunk.available < count { chunk = RecordChunk(capacity: RecordChunk.size) }
            return (chunk, chunk.claim(count))
        }
    }
}

/// What `DeliveryStore.compactQuery` found: `DeliveryQueryResult` before decoding.
package typealias CompactQueryResult = SequenceQueryResult<(seq: UInt64, record: CompactRecord)>
