/// What a journal holds for the store to put back at start (`JournalReader.read`,
/// `DeliveryStore.attach`): the records since its last clear, at most the store's capacity of
/// them (the newest), with consecutive sequence numbers, corrections applied.
package struct JournalContents: Sendable {
    /// The records to put back, oldest first: their compact bytes and seq (consecutive).
    package var records: [(bytes: [UInt8], seq: UInt64)] = []
    /// The newest sequence number the journal names (a record's or a clear's); 0 for an empty journal.
    package var lastSeq: UInt64 = 0
    /// Records since the last clear that do not fit the capacity: they count as evicted.
    package var evicted: UInt64 = 0
    /// The byte offset of a torn last line that was ignored (a crash in the middle of a write),
    /// or nil; the file is cut back to it before new lines are appended.
    package var tornTailOffset: Int?
    /// The length of the file up to the end of its last good line.
    package var validLength = 0
    /// Lines read (records, corrections and clears; not the header).
    package var lines = 0

    /// The seq of the first record to put back, or `lastSeq + 1` when there is none.
    package var firstSeq: UInt64 { records.first?.seq ?? lastSeq &+ 1 }

    /// Nothing: a new or empty journal.
    package init() {}
}
