/// When a journal's writes are made durable (`--journal-sync`, README "Journal").
///
/// The journal is always written by its own thread, off the push path; this says whether that
/// thread also calls `fdatasync` and whether an answer waits for it.
public enum JournalSync: String, Sendable, Equatable, CaseIterable {
    /// Each batch is written and synced (`fdatasync`) before any answer to a push in it leaves:
    /// a push answered is on disk, so `kill -9` or a power cut loses no answered push. The
    /// transport waits once per loop pass for everything recorded so far (group commit), not
    /// once per push.
    case always
    /// Default. Each batch is written and synced, but answers do not wait: `kill -9` loses at
    /// most the records still queued (milliseconds' worth), a power cut those not yet synced.
    case batch
    /// Batches are written, never synced: the kernel writes them back when it likes. `kill -9`
    /// loses what is still queued; a power cut may lose more.
    case never
}
