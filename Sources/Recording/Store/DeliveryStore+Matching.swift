/// Matching for a pending verification (`POST /v1/verify`, docs/testing.md) at the cost of what
/// changed: only records after the last seen seq, the cheap compact-record filter first, then a
/// byte check (`PayloadNeedles`), and a record decoded only when it is still a candidate.
extension DeliveryStore {
    /// What `matches(_:after:)` found: the seqs matching, oldest first, and how it looked.
    package struct MatchProgress: Sendable {
        /// The matching seqs after the waiter's last view, or all stored ones when `restarted`.
        package var seqs: [UInt64]
        /// True when the store was cleared or a record corrected since the waiter's last view:
        /// `seqs` is the whole answer, not an addition.
        package var restarted: Bool
        /// The oldest seq held: earlier matches are gone (evicted or cleared).
        package var firstSeq: UInt64
        /// The newest seq looked at: the next look starts after it.
        package var lastSeq: UInt64
        /// False when the look stopped at `budget` decoded records: records after `lastSeq`
        /// are still to be looked at, the store unchanged or not.
        package var complete: Bool
        /// Clears plus corrections when looked: the next look's `epoch`.
        package var epoch: UInt64
        /// Records decoded (whole, their payload parsed) to decide: the cost beyond the filter.
        package var decoded: Int
    }

    /// Records taken from the filter per record a bounded look may decode: the byte check costs
    /// far less than a decode, but not nothing.
    package static var compactBudgetFactor: Int { 20 }

    /// The records matching `match` after `afterSeq` (all stored ones when the store was
    /// cleared or a record corrected since `epoch`: `restarted`), decoding at most `budget`
    /// records and taking at most `compactBudgetFactor` times as many from the filter (nil: no
    /// bound; past it `complete` is false and `lastSeq` the last one looked at). Decoding runs
    /// outside the lock.
    package func matches(_ match: DeliveryMatch, epoch: UInt64, afterSeq: UInt64, budget: Int? = nil)
        -> MatchProgress
    {
        let found = compactMatches(
            match.filter, epoch: epoch, afterSeq: afterSeq, limit: budget.map { $0 * Self.compactBudgetFactor })
        var seqs: [UInt64] = []
        var decoded = 0
        var lastSeq = found.lastSeq
        var complete = true
        if found.more, let last = found.elements.last {
            lastSeq = last.seq
            complete = false
        }
        if match.payload.isEmpty {
            seqs = found.elements.map(\.seq)
        } else {
            let needles = PayloadNeedles(match.payload)
            let budget = budget ?? Int.max
            for (seq, record) in found.elements where record.withBytes({ needles.mayMatch($0) }) {
                if decoded == budget {
                    lastSeq = seq - 1
                    complete = false
                    break
                }
                decoded += 1
                if match.matches(record.decoded(seq: seq)) { seqs.append(seq) }
            }
        }
        return MatchProgress(
            seqs: seqs, restarted: found.restarted, firstSeq: found.firstSeq, lastSeq: lastSeq, complete: complete,
            epoch: found.epoch, decoded: decoded)
    }
}
