/// One thing a `DeliveryJournal` writes: a record appended, a record corrected in place, or a
/// clear. Made by `DeliveryStore` under its lock (so in seq order) and encoded by the journal's
/// writer thread (`JournalLine`).
package enum JournalEntry: Sendable {
    /// The record stored as `seq` (a reference to its bytes; a repeat is written out in full).
    case record(seq: UInt64, CompactRecord)
    /// The record `seq` as corrected (`DeliveryStore.markUnanswered`, `markAnswered`): it
    /// replaces the earlier line of that seq when the journal is read back.
    case correction(seq: UInt64, CompactRecord)
    /// `DELETE /v1/deliveries`: every record before it is gone; numbering goes on after `lastSeq`.
    case clear(lastSeq: UInt64)
}
