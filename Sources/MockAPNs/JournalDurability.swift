import HTTP2Transport
import Recording

/// The delivery journal as the transport waits for it (`--journal-sync always`): answers leave
/// only once every record queued before them is synced (`DeliveryJournal.awaitDurable`).
final class JournalDurability: AnswerDurability {
    let journal: DeliveryJournal

    init(journal: DeliveryJournal) { self.journal = journal }

    func awaitDurable() { journal.awaitDurable() }
}
