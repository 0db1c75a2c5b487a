import Foundation
import Glibc
import Synchronization

/// The delivery journal (`--journal FILE`, README "Journal"): every record, correction and clear
/// of a `DeliveryStore`, appended to a file as newline-delimited JSON (`JournalLine`) by a
/// thread of its own, so the push path only queues a reference to the record (under the
/// store's lock, hence in seq order).
///
/// The writer takes everything queued at once, encodes it, writes it with one `write` and, unless
/// `sync` is `never`, one `fdatasync`: a group commit. With `sync` `always` the transport calls
/// `awaitDurable()` before answers leave (once per loop pass), which returns when everything
/// queued before the call is on disk.
///
/// A failed write or sync is reported through `report` (once until writes succeed again) and
/// does not hold answers back: the journal is a mock's history, not a database.
public final class DeliveryJournal: @unchecked Sendable {
    /// The file.
    public let path: String
    /// When writes are made durable.
    public let sync: JournalSync
    private let fd: Int32
    private let report: @Sendable (String) -> Void
    /// Guards `queue` and `stopping`; the writer waits on it for work.
    private let work = NSCondition()
    private var queue: [JournalEntry] = []
    private var stopping = false
    /// Entries ever queued, and entries written (and synced, unless `never`): `awaitDurable`'s
    /// fast path reads both without a lock.
    private let queuedCount = Atomic<UInt64>(0)
    private let durableCount = Atomic<UInt64>(0)
    /// Waiters of `awaitDurable` sleep on it until `durableCount` passes their mark.
    private let durable = NSCondition()
    private let finished = DispatchSemaphore(value: 0)
    /// Bytes written since start (`stats`).
    private let writtenBytes = Atomic<UInt64>(0)
    private let syncs = Atomic<UInt64>(0)

    /// Opens `path` for appending (creating it, mode 0644), after cutting it back to
    /// `contents.validLength` (a torn last line is dropped, so new lines do not join it) and
    /// writing the header when the file is new, and starts the writer thread.
    /// - Parameter report: told of write and sync failures (the server logs them).
    /// - Throws: `JournalError` when the file cannot be opened, cut or written.
    package init(
        path: String, sync: JournalSync, contents: JournalContents,
        report: @escaping @Sendable (String) -> Void
    ) throws(JournalError) {
        self.path = path
        self.sync = sync
        self.report = report
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw JournalError(path: path, message: "cannot be opened for writing: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        guard ftruncate(fd, off_t(contents.validLength)) == 0, lseek(fd, 0, SEEK_END) >= 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw JournalError(path: path, message: "cannot be cut back to its last good line: \(reason)")
        }
        if contents.validLength == 0 {
            guard DeliveryJournal.writeAll(fd, JournalLine.header), fdatasync(fd) == 0 || sync == .never else {
                let reason = String(cString: strerror(errno))
                Glibc.close(fd)
                throw JournalError(path: path, message: "cannot be written: \(reason)")
            }
        }
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { arg in
                let journal = Unmanaged<DeliveryJournal>.fromOpaque(arg!).takeRetainedValue()
                journal.runWriter()
                return nil
            }, box.toOpaque())
        precondition(rc == 0, "pthread_create failed: \(rc)")
        pthread_detach(thread)
    }

    deinit { Glibc.close(fd) }

    /// Queues `entry` for the writer. Called by `DeliveryStore` under its lock: O(1), a
    /// reference to the record, no encoding.
    package func append(_ entry: JournalEntry) {
        work.lock()
        queue.append(entry)
        let wasEmpty = queue.count == 1
        queuedCount.add(1, ordering: .releasing)
        if wasEmpty { work.signal() }
        work.unlock()
    }

    /// Returns once everything queued before the call is written and synced (`sync` `always`;
    /// with another mode it still waits for the write). At once when nothing is waiting, without a lock.
    public func awaitDurable() {
        let mark = queuedCount.load(ordering: .acquiring)
        guard durableCount.load(ordering: .acquiring) < mark else { return }
        durable.lock()
        while durableCount.load(ordering: .acquiring) < mark { durable.wait() }
        durable.unlock()
    }

    /// Writes what is queued, stops the writer and returns when its last write is synced. Call
    /// once the store takes no more records (`MockAPNsServer.stop`); entries queued later are lost.
    public func close() {
        work.lock()
        let first = !stopping
        stopping = true
        work.signal()
        work.unlock()
        if first { finished.wait() }
    }

    /// Bytes written and syncs made since start.
    public var stats: (bytes: UInt64, syncs: UInt64) {
        (writtenBytes.load(ordering: .relaxed), syncs.load(ordering: .relaxed))
    }

    private func runWriter() {
        var batch: [JournalEntry] = []
        var out: [UInt8] = []
        var failing = false
        while true {
            work.lock()
            while queue.isEmpty && !stopping { work.wait() }
            swap(&batch, &queue)
            let stop = stopping && batch.isEmpty
            work.unlock()
            if stop { break }
            out.removeAll(keepingCapacity: true)
            for entry in batch { JournalLine.append(entry, to: &out) }
            let count = UInt64(batch.count)
            batch.removeAll(keepingCapacity: true)  // the records' chunks are released here
            var ok = DeliveryJournal.writeAll(fd, out)
            if ok && sync != .never {
                ok = fdatasync(fd) == 0
                syncs.add(1, ordering: .relaxed)
            }
            if ok {
                writtenBytes.add(UInt64(out.count), ordering: .relaxed)
                failing = false
            } else if !failing {
                failing = true
                report(
                    "journal \(path): write failed (\(String(cString: strerror(errno)))); records go on being kept in memory"
                )
            }
            durable.lock()
            durableCount.add(count, ordering: .releasing)
            durable.broadcast()
            durable.unlock()
        }
        finished.signal()
    }

    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR; false on an error.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                done += n
            }
            return true
        }
    }
}
