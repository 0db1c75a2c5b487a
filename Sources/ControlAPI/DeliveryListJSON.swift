import APNsCore
import Foundation
import Recording

/// Renders the answers that carry many delivery records (`GET /v1/deliveries`, the wait),
/// byte for byte as one `JSONEncoder` call over the whole answer would, but faster and in far
/// less memory. Every byte of JSON is written by `JSONEncoder`; this type only puts encoder
/// outputs together:
///
/// - each record is encoded by its own call, and the records are placed, comma-separated, into
///   the empty `deliveries` array of the envelope (itself encoded by `JSONEncoder`);
/// - a record is encoded with `headers`, `identity` and (when it is JSON) `payload` as `null`,
///   and their JSON, encoded once per run of records with the same values (usual: one client,
///   one provider token, a load test's one payload), is put in place of those nulls (see
///   `RepeatedParts`, `markerIndex`).
///
/// Why: the encoder builds a tree of the entire value before writing any of it, about 10 KB per
/// record, so a page of 100,000 records took a gigabyte at its peak (which the allocator then
/// kept) and ran slower for the cache misses; record by record, the peak is the answer's own
/// bytes plus one record's tree. And the encoder is nearly all of a page's time, nearly half of
/// it for the headers, identity and payload, hence those written once per run (bench/README.md,
/// "Delivery records").
///
/// Large pages (`recordsPerTask` records a thread and more) are encoded by up to one thread per
/// core at once, each a run of consecutive records, joined in order. The first run reserves
/// room for the whole answer, so the peak is about the answer plus the other runs.
enum DeliveryListJSON {
    /// The answer `envelope` describes, with `records` (decoded here, each with its seq) as its
    /// `deliveries`. `envelope` must encode `"deliveries":[]` (an empty array under that key)
    /// exactly once. `join` gives the whole JSON of a record that carries more than the record
    /// (a push to a virtual device, docs/device-model.md §7), nil for the others. `nil` when
    /// encoding fails.
    static func body(
        envelope: some Encodable, records: [(seq: UInt64, record: CompactRecord)],
        join: (@Sendable (UInt64, DeliveryRecord) -> [UInt8]?)? = nil
    ) -> [UInt8]? {
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
            runs.set(
                task,
                encodeRun(
                    records[range], join: join, after: task == 0 ? head : [UInt8(ascii: ",")],
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

    /// How a live stream frames each record (`StreamFrames`): its format and `event:` name.
    struct StreamFraming {
        let format: StreamFormat
        let event: String
    }

    /// `records` (decoded here), each as its own stream message (`StreamFrames.record`), in
    /// order, on this thread; a record's JSON is the same bytes `body` puts in a page. `join` as
    /// for `body`. `nil` when encoding fails.
    static func streamMessages(
        records: [(seq: UInt64, record: CompactRecord)], format: StreamFormat,
        join: (@Sendable (UInt64, DeliveryRecord) -> [UInt8]?)? = nil
    ) -> [UInt8]? {
        encodeRun(
            records[...], join: join, after: [], before: [], reserveFor: records.count,
            framing: StreamFraming(format: format, event: StreamFrames.deliveryEvent))
    }

    /// Records per task below which one thread does the whole answer.
    static let recordsPerTask = 2_000

    /// `prefix`, then `records` as JSON array elements separated by commas, then `suffix`;
    /// `nil` when a record cannot be encoded.
    private static func encodeRun(
        _ records: ArraySlice<(seq: UInt64, record: CompactRecord)>,
        join: (@Sendable (UInt64, DeliveryRecord) -> [UInt8]?)?,
        after prefix: [UInt8], before suffix: [UInt8], reserveFor expected: Int,
        framing: StreamFraming? = nil
    ) -> [UInt8]? {
        let encoder = makeEncoder()
        var parts = RepeatedParts()
        var out = prefix
        var first = true
        for (seq, compact) in records {
            let record = compact.decoded(seq: seq)
            if let join, let whole = join(seq, record) {
                if let framing {
                    out.append(contentsOf: StreamFrames.recordOpening(framing.format, event: framing.event, seq: seq))
                } else if !first {
                    out.append(UInt8(ascii: ","))
                }
                first = false
                out.append(contentsOf: whole)
                if let framing { out.append(contentsOf: StreamFrames.recordClosing(framing.format)) }
                continue
            }
            guard let headers = parts.headers(record.headers, encoder),
                let identity = parts.identity(record.identity, encoder),
                let payload = parts.payload(record.payload, encoder),
                let shell = try? encoder.encode(
                    DeliveryRecordWithoutParts(record: record, payloadIsJSON: payload != nil))
            else { return nil }
            if first {
                // Records of one page are alike in size: reserve for all `expected` at once.
                let size = shell.count + headers.count + identity.count + (payload?.count ?? 0) + 1
                out.reserveCapacity(prefix.count + size * expected * 5 / 4 + suffix.count)
            }
            if let framing {
                out.append(contentsOf: StreamFrames.recordOpening(framing.format, event: framing.event, seq: seq))
            } else if !first {
                out.append(UInt8(ascii: ","))
            }
            first = false
            let spliced = shell.withUnsafeBytes { shell -> Bool in
                splice(
                    shell.bindMemory(to: UInt8.self), headers: headers, identity: identity, payload: payload, into: &out
                )
            }
            if !spliced {
                // Not expected (see `markerIndex`); the whole record in one call is always right.
                guard let whole = try? encoder.encode(record) else { return nil }
                whole.withUnsafeBytes { out.append(contentsOf: $0) }
            }
            if let framing { out.append(contentsOf: StreamFrames.recordClosing(framing.format)) }
        }
        out.append(contentsOf: suffix)
        return out
    }

    /// Appends `shell` (a record written by `DeliveryRecordWithoutParts`) to `out` with its
    /// left-out values put in; false (having appended nothing) when a marker is missing.
    private static func splice(
        _ shell: UnsafeBufferPointer<UInt8>, headers: [UInt8], identity: [UInt8], payload: [UInt8]?,
        into out: inout [UInt8]
    ) -> Bool {
        guard let partsAt = markerIndex(partsMarker, in: shell, from: 0) else { return false }
        let afterParts = partsAt + partsMarker.count
        var payloadAt: Int?
        if payload != nil {
            payloadAt = markerIndex(payloadMarker, in: shell, from: afterParts)
            guard payloadAt != nil else { return false }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: shell[..<partsAt]))
        out.append(contentsOf: headersKey)
        out.append(contentsOf: headers)
        out.append(contentsOf: identityKey)
        out.append(contentsOf: identity)
        guard let payload, let payloadAt else {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: shell[afterParts...]))
            return true
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: shell[afterParts..<payloadAt]))
        out.append(contentsOf: payloadKey)
        out.append(contentsOf: payload)
        out.append(
            contentsOf: UnsafeBufferPointer(
                rebasing: shell[(payloadAt + payloadMarker.count - payloadBytesKey.count)...]))
        return true
    }

    /// Where a record written by `DeliveryRecordWithoutParts` leaves its `headers` and
    /// `identity` (the two keys are adjacent in sorted order), and its `payload`.
    static let partsMarker = Array(#""headers":null,"identity":null"#.utf8)
    static let payloadMarker = Array(#""payload":null,"payloadBytes":"#.utf8)
    private static let headersKey = Array(#""headers":"#.utf8)
    private static let identityKey = Array(#","identity":"#.utf8)
    private static let payloadKey = Array(#""payload":"#.utf8)
    private static let payloadBytesKey = Array(#","payloadBytes":"#.utf8)

    /// The offset of the first `marker` in `json` at or after `start`. The markers are found
    /// only as the record's own keys: a `"` inside a JSON string is always escaped (`\"`), so a
    /// marker cannot start or end inside one, and the only objects written before them are
    /// `fault`, whose keys are fixed, and (before `payload`) `headers` and `identity`, written
    /// as null in the record searched.
    static func markerIndex(_ marker: [UInt8], in json: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard json.count - start >= marker.count else { return nil }
        return marker.withUnsafeBufferPointer { marker in
            var i = start
            let last = json.count - marker.count
            while i <= last {
                if json[i] == 0x22, memcmp(json.baseAddress! + i, marker.baseAddress!, marker.count) == 0 { return i }
                i += 1
            }
            return nil
        }
    }

    /// The JSON of the last `headers`, `identity` and `payload` written: records of one client
    /// mostly repeat them (same connection, same provider token, and a load test's one payload),
    /// and `JSONEncoder` spends nearly half its time on these values. Written once per change;
    /// a record whose values changed costs one extra encoder call per value.
    private struct RepeatedParts {
        private var lastHeaders: [HeaderField]?
        private var headersJSON: [UInt8] = []
        private var lastIdentity: CredentialIdentity??
        private var identityJSON: [UInt8] = []
        private var lastPayload: [UInt8]?
        private var payloadJSON: [UInt8]?

        mutating func headers(_ headers: [HeaderField], _ encoder: JSONEncoder) -> [UInt8]? {
            if lastHeaders.map({ !UTF8Bytes.equal($0, headers) }) ?? true {
                guard let data = try? encoder.encode(DeliveryHeadersJSON(headers: headers)) else { return nil }
                headersJSON = [UInt8](data)
                lastHeaders = headers
            }
            return headersJSON
        }

        /// The payload's JSON, `.some(nil)` when it is not JSON, `nil` when it cannot be encoded.
        mutating func payload(_ payload: [UInt8], _ encoder: JSONEncoder) -> [UInt8]?? {
            if lastPayload != payload {
                if let parsed = ParsedJSONEncoding.parse(payload) {
                    guard let data = try? encoder.encode(DeliveryPayloadJSON(parsed: parsed)) else { return nil }
                    payloadJSON = [UInt8](data)
                } else {
                    payloadJSON = nil
                }
                lastPayload = payload
            }
            return .some(payloadJSON)
        }

        mutating func identity(_ identity: CredentialIdentity?, _ encoder: JSONEncoder) -> [UInt8]? {
            if lastIdentity.map({ !Self.same($0, identity) }) ?? true {
                guard let data = try? encoder.encode(DeliveryIdentityJSON(identity: identity)) else { return nil }
                identityJSON = [UInt8](data)
                lastIdentity = .some(identity)
            }
            return identityJSON
        }

        // Sameness is by bytes: `==` on strings equates canonically equivalent text, whose JSON
        // differs.

        private static func same(_ a: CredentialIdentity?, _ b: CredentialIdentity?) -> Bool {
            guard let a, let b else { return a == nil && b == nil }
            return UTF8Bytes.equal(a.kind, b.kind) && UTF8Bytes.equal(a.keyID, b.keyID)
                && UTF8Bytes.equal(a.teamID, b.teamID) && a.issuedAt?.bitPattern == b.issuedAt?.bitPattern
                && UTF8Bytes.equal(a.subject, b.subject) && a.topics?.count == b.topics?.count
                && zip(a.topics ?? [], b.topics ?? []).allSatisfy { UTF8Bytes.equal($0, $1) }
                && UTF8Bytes.equal(a.verdict, b.verdict)
        }
    }

    /// Encoder options as `ControlResponse`'s: compact, keys sorted, slashes unescaped.
    private static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
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
