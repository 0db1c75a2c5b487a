/// The tagged streams whose response HEADERS nghttp2 has serialized but whose bytes may still sit
/// in the connection's write buffer (issue 13: a record follows what was really sent). A close
/// that cannot write them (a TCP RST drops the buffer, a blocked socket, a blackhole) leaves
/// those streams unanswered after all: `lost(writtenThrough:)` names them.
///
/// Positions count the bytes appended to the write buffer since the connection began. An entry
/// gets its position when the bytes of the call that serialized it are appended (nghttp2 reports
/// a frame sent from within the `nghttp2_session_mem_send` call that returns it): the end of
/// that chunk, so never before the frame's last byte. Emptied whenever everything appended has
/// been written, which is every flush on a socket that keeps up: an append per push, no allocation
/// once the list has grown to a batch's size.
///
/// Confined to its connection's loop thread.
struct UnwrittenAnswers {
    /// One stream: its tag, its id, and the position its HEADERS ends by (0: not yet appended).
    struct Entry: Equatable {
        var tag: UInt64
        var streamID: Int32
        var end: UInt64
    }

    /// Oldest first.
    private(set) var entries: [Entry] = []
    /// Entries from here on have no position yet.
    private var unplaced = 0

    /// True when no entry waits.
    var isEmpty: Bool { entries.isEmpty }

    /// The HEADERS of the stream `streamID`, tagged `tag`, was just serialized.
    @inline(__always)
    mutating func serialized(tag: UInt64, streamID: Int32) {
        entries.append(Entry(tag: tag, streamID: streamID, end: 0))
    }

    /// Bytes were appended to the write buffer, which has now had `appended` bytes in all: the
    /// entries serialized since the last call end by there.
    @inline(__always)
    mutating func appended(through appended: UInt64) {
        while unplaced < entries.count {
            entries[unplaced].end = appended
            unplaced += 1
        }
    }

    /// Everything appended was written: no entry can be lost any more.
    @inline(__always)
    mutating func allWritten() {
        guard !entries.isEmpty else { return }
        entries.removeAll(keepingCapacity: true)
        unplaced = 0
    }

    /// The entries whose HEADERS had not been written in full when only the first `written`
    /// bytes ever appended were written (an entry with no position yet was never appended), and
    /// forgets every entry.
    mutating func lost(writtenThrough written: UInt64) -> [Entry] {
        let lost = entries.filter { $0.end == 0 || $0.end > written }
        entries.removeAll()
        unplaced = 0
        return lost
    }
}
