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
/// Large pages are encoded by several threads at once, each a run of consecutive records, and
/// joined in order.
enum DeliveryListJSON {
    /// The answer `envelope` describes, with `records` (decoded here, each with its seq) as its
    /// `deliveries`. `envelope` must encode its `deliveries` as an empty array and hold no
    /// other empty array. `nil` when encoding fails.
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
            runs.set(task, encodeRun(records[range], after: task == 0 ? head : [UInt8(ascii: ",")],
                                     before: task == tasks - 1 ? tail : []))
        }
        if tasks == 1 {
            work(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: tasks, execute: work)
        }
        guard var all = runs.all() else { return nil }
        if all.count == 1 { return all.removeLast() }
        var body: [UInt8] = []
        body.reserveCapacity(all.reduce(0) { $0 + $1.count })
        for run in all { body.append(contentsOf: run) }
        return body
    }

    /// Records per task below which one thread does the whole answer.
    static let recordsPerTask = 2_000

    /// `prefix`, then `records` as JSON array elements separated by commas, then `suffix`;
    /// `nil` when a record cannot be encoded.
    private static func encodeRun(_ records: ArraySlice<(seq: UInt64, record: CompactRecord)>,
                                  after prefix: [UInt8], before suffix: [UInt8]) -> [UInt8]? {
        let encoder = makeEncoder()
        var out = prefix
        var first = true
        for (seq, compact) in records {
            guard let data = try? encoder.encode(compact.decoded(seq: seq)) else { return nil }
            if first {
                // Records of one page are alike in size: reserve for the run at once.
                out.reserveCapacity(prefix.count + (data.count + 1) * records.count * 5 / 4 + suffix.count)
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

        /// Every result, or nil when one task failed.
        func all() -> [[UInt8]]? {
            lock.lock()
            defer { lock.unlock() }
            var out: [[UInt8]] = []
            for result in results {
                guard let result else { return nil }
                out.append(result)
            }
            return out
        }
    }
}
