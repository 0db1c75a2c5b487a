/// A block of memory that holds compact records back to back, oldest first. The store fills one
/// chunk at a time under its lock; each `CompactRecord` in it holds a reference, so the chunk is
/// freed when its last record is evicted, cleared or dropped by a reader that copied it out, and
/// no stored repeat (`CompactRecord(repeating:chunk:offset:deltaCount:)`) has its model in it.
///
/// Why not one array per record: on the request path that was a `malloc` and a `free` per push,
/// and while the store grew, glibc extended the worker thread's arena a page at a time with one
/// `mprotect` call per page (some 6,000 calls per 100,000 pushes, `strace -c`). A chunk is one
/// allocation per `size` bytes.
///
/// The bytes of a placed record never change. Bytes past `used` are written only under the
/// owner's lock, and a record is read only after the lock has published it, so readers on other
/// threads see whole records.
final class RecordChunk: @unchecked Sendable {
    /// The usual chunk size in bytes: some 200 records of a 100-byte payload. A record larger
    /// than `largeRecord` gets a chunk of its own size.
    static let size = 64 * 1024
    /// Records above this many bytes get a chunk of their own: a chunk never wastes more than
    /// this much at its end.
    static let largeRecord = 16 * 1024

    let base: UnsafeMutableRawPointer
    /// Bytes the chunk holds.
    let capacity: Int
    /// Bytes placed so far; changed only by the owner, under its lock.
    private(set) var used = 0

    /// An empty chunk of `capacity` bytes (at least 1).
    init(capacity: Int) {
        self.capacity = max(1, capacity)
        base = .allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    /// Bytes still free.
    var available: Int { capacity - used }

    /// Claims the next `count` bytes (at most `available`) and returns their offset; the caller
    /// writes them before publishing the record.
    func claim(_ count: Int) -> Int {
        precondition(count <= available, "RecordChunk: claimed past the end")
        defer { used += count }
        return used
    }
}
