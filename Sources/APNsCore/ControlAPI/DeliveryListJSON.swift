import Foundation

/// Renders the answers that carry many delivery records (`GET /v1/deliveries`, the wait): each
/// record is encoded by its own `JSONEncoder` call, and the results are placed, comma-separated,
/// into the empty `deliveries` array of the envelope, itself encoded by `JSONEncoder`. Every
/// byte of JSON is still Foundation's; only array elements are joined here.
///
/// Why not one `JSONEncoder` call for the whole answer: the encoder builds a tree of the entire
/// value before writing any of it, about 10 KB per record, so a page of 100,000 records took a
/// gigabyte at its peak (which the allocator then kept) and ran slower for the cache misses.
/// Record by record, the peak is the answer's own bytes plus one record's tree.
///
/// Large pages (`recordsPerTask` records a thread and more) are encoded by up to one thread per
/// core at once, each a run of consecutive records, joined in order: `JSONEncoder` costs some
/// 35-45 µs of CPU per record (release build, 2-core VM), almost all of the page's time.
/// The first run reserves room for the whole answer, so the peak is about the answer plus the
/// other runs.
enum DeliveryListJSON {
    /// The answer `envelope` describes, with `records` (decoded here, each with its seq) as its
    /// `deliveries`. `envelope` must encode `"deliveries":[]` (an empty array under that key)
    /// exactly once. `nil` when encoding fails.
    static func body(envelope: some Encodable, records: [(seq: UInt64, record: CompactRecord)]) -> [UInt8]? {
        guard let shell = try? makeEncoder().encode(envelope) else { return nil }
        let shellBytes = [UInt8](shell)
        let marker = Array(#""deliveries":[]"#.utf8)
        guard let at = firstIndex(of: marker, in: shellBytes) else { return nil }
        let insertAt = at + marker.count - 1  // just before the `]`
        let head = Array(shellBytes[..<insertAt]), tail = Array(shellBytes[insertAt...])

        // Consecutive runs of records, one per task; the first run starts with the envelope's
        // head and the last ends with its tail, so a single run is the whole answer as it is.
        let tasks = min(max(1, records.count / recordsPerTask), max(1, ProcessInfo.processInfo.activeProcessorCount))
        let perTask = (records.count + tasks - 1) / tasks
        let runs = RunResults(count: tasks)
        let work: @Sendable (Int) -> Void = { task in
            let range = min(task * perTask, records.count)..<min((task + 1) * perTask, records.count)
            // The first run reserves room for the whole answer, so the others are appended to it
            // in place (reserved pages cost no memory until written).
            runs.set(task, encodeRun(records[range], after: task == 0 ? head : [UInt8(ascii: ",")],
                                     before: task == tasks - 1 ? tail : [],
                                     reserveFor: task == 0 ? records.count : range.count))
        }
        if tasks == 1 {
            work(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: tasks, execute: work)
        }
        guard var all = runs.take() else { return nil }
        var body = all[0]
        all[0] = []  // `body` is the only reference: appends happen in place
        for i in 1..<all.count {
            body.append(contentsOf: all[i])
            all[i] = []  // each run is freed once copied
        }
        return body
    }

    /// Records per task below which one thread does the whole answer.
    static let recordsPerTask = 2_000

    /// `prefix`, then `records` as JSON array elements separated by commas, then `suffix`;
    /// `nil` when a record cannot be encoded.
    private static func encodeRun(_ records: ArraySlice<(seq: UInt64, record: CompactRecord)>,
                                  after prefix: [UInt8], before suffix: [UInt8], reserveFor expected: Int) -> [UInt8]? {
        let encoder = makeEncoder()
        var out = prefix
        var first = true
        for (seq, compact) in records {
            guard let data = try? encoder.encode(compact.decoded(seq: seq)) else { return nil }
            if first {
                // Records of one page are alike in size: reserve for all `expected` at once.
                out.reserveCapacity(prefix.count + (data.count + 1) * expected * 5 / 4 + suffix.count)
                first = false
            } else {
                out.append(UInt8(ascii: ","))
            }
            data.withUnsafeBytes { out.append(contentsOf: $0) }
        }
        out.append(contentsOf: suffix)
        return out
    }

    /// Encoder options as `ControlResponse`'s: compact, keys sorted, slashes unescaped.
    private static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }

    /// Per-task results, written by the tasks and read after all have finished.
    private final class RunResults: @unchecked Sendable {
        private var results: [[UInt8]?]
        private let lock = NSLock()

        init(count: Int) { results = Array(repeating: nil, count: count) }

        func set(_ index: Int, _ value: [UInt8]?) {
            lock.lock()
            results[index] = value
            lock.unlock()
        }

        /// Moves every result out (none stays behind holding a reference), or nil when a task failed.
        func take() -> [[UInt8]]? {
            lock.lock()
            defer { lock.unlock() }
            var taken: [[UInt8]?] = []
            swap(&taken, &results)
            var out: [[UInt8]] = []
            out.reserveCapacity(taken.count)
            for index in taken.indices {
                guard let result = taken[index] else { return nil }
                taken[index] = nil
                out.append(result)
            }
            return out
        }
    }
}
