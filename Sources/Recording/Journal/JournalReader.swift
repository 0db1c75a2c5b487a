import Foundation

/// Reads a journal back at start (`DeliveryStore.attach`, README "Journal").
///
/// Rules: the first line must be the header of this format version (`JournalLine.header`); a
/// record's seq must follow the one before (or the clear before) by one; a correction names a
/// seq already seen; a clear drops every record before it. A torn last line (no newline: the
/// process died in the middle of a write) or a bad last line is ignored and reported
/// (`JournalContents.tornTailOffset`, the byte offset where it starts); any other bad line is a
/// `JournalError` naming its line number, and the server refuses to start: history is not
/// dropped silently from the middle of a journal.
package enum JournalReader {
    /// Reads `path`, keeping the newest `capacity` records since the last clear. A missing or
    /// empty file is an empty journal.
    /// - Throws: `JournalError` (unreadable, another format version, a bad line before the last).
    package static func read(path: String, capacity: Int) throws(JournalError) -> JournalContents {
        guard FileManager.default.fileExists(atPath: path) else { return JournalContents() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw JournalError(path: path, message: "cannot be read (check its permissions)")
        }
        return try read([UInt8](data), path: path, capacity: capacity)
    }

    /// `read(path:capacity:)` over the file's bytes; `path` only names the file in errors.
    package static func read(_ bytes: [UInt8], path: String, capacity: Int) throws(JournalError) -> JournalContents {
        var contents = JournalContents()
        let capacity = max(1, capacity)
        // Records since the last clear, from `base` on; trimmed to the newest `capacity` now and then.
        var kept: [[UInt8]] = []
        var base: UInt64 = 1
        var lineNumber = 0
        var start = 0
        var sawHeader = false
        while start < bytes.count {
            lineNumber += 1
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline ?? bytes.count
            let isLast = newline == nil || end + 1 >= bytes.count
            let parsed: JournalLine.Parsed
            do throws(JournalLineProblem) {
                guard newline != nil else { throw JournalLineProblem(message: "no newline (a torn write)") }
                parsed = try JournalLine.parse(bytes[start..<end])
            } catch {
                if isLast {
                    contents.tornTailOffset = start
                    break
                }
                throw JournalError(path: path, line: lineNumber, message: error.message)
            }
            func fail(_ message: String) -> JournalError {
                JournalError(path: path, line: lineNumber, message: message)
            }
            switch parsed {
            case .header(let version):
                guard lineNumber == 1 else { throw fail("a header after the first line") }
                guard version == JournalLine.version else {
                    throw fail(
                        "written by a MockAPNs of journal version \(version); this one reads version "
                            + "\(JournalLine.version) (start with a new file)")
                }
                sawHeader = true
            case .record(let seq, let record, let corrected):
                guard sawHeader else { throw fail("no journal header on the first line") }
                let next = base &+ UInt64(kept.count)
                if corrected {
                    guard seq < next else { throw fail("a correction of seq \(seq), which is not recorded before it") }
                    if seq >= base { kept[Int(seq - base)] = record }  // else: evicted already
                } else {
                    guard seq == contents.lastSeq &+ 1 else {
                        throw fail("seq \(seq) follows \(contents.lastSeq) (expected \(contents.lastSeq &+ 1))")
                    }
                    if kept.isEmpty { base = seq }
                    kept.append(record)
                    contents.lastSeq = seq
                    if kept.count >= 2 * capacity {
                        let drop = kept.count - capacity
                        kept.removeFirst(drop)
                        base &+= UInt64(drop)
                        contents.evicted &+= UInt64(drop)
                    }
                }
            case .clear(let lastSeq):
                guard sawHeader else { throw fail("no journal header on the first line") }
                guard lastSeq >= contents.lastSeq else {
                    throw fail("a clear at seq \(lastSeq), before the last record (\(contents.lastSeq))")
                }
                kept.removeAll()
                contents.lastSeq = lastSeq
                contents.evicted = 0
                base = lastSeq &+ 1
            }
            contents.lines += lineNumber == 1 ? 0 : 1
            start = end + 1
            contents.validLength = start
        }
        if kept.count > capacity {
            let drop = kept.count - capacity
            kept.removeFirst(drop)
            base &+= UInt64(drop)
            contents.evicted &+= UInt64(drop)
        }
        contents.records = kept.enumerated().map { ($0.element, base &+ UInt64($0.offset)) }
        return contents
    }
}
