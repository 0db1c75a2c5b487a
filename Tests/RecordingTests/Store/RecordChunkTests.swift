import XCTest

@testable import APNsCore
@testable import Recording

/// The store keeps records back to back in shared chunks (`RecordChunk`): records of every size
/// come back exactly, a chunk lives while any of its records is held and is freed after, and a
/// record copied out by a query outlives its eviction.
final class RecordChunkTests: XCTestCase {
    private static let token = String(repeating: "ab", count: 32)

    /// A record whose payload is `size` bytes, numbered `n` in its path and header.
    private static func record(_ n: Int, payload size: Int) -> DeliveryRecord {
        var verdict = ValidationResult()
        verdict.deviceToken = token
        return DeliveryRecord(
            receivedAt: 1_796_000_000 + Double(n), environment: .sandbox, listener: "sandbox",
            connectionID: UInt64(n % 5), streamID: Int32(2 * n + 1), method: "POST",
            path: "/3/device/\(token)", verdict: verdict, apnsID: "rec-\(n)", uniqueID: nil,
            headers: [HeaderField(name: "x-n", value: "\(n)")],
            payload: (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ n) }, payloadBytes: size,
            status: 200, reason: nil, identity: nil, fault: nil)
    }

    /// `compact` decodes to `expected` (whose encoding is lossless, `CompactRecordTests`).
    private static func assertHolds(
        _ compact: CompactRecord, seq: UInt64, _ expected: DeliveryRecord,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(compact.bytes, CompactRecord(expected).bytes, "record \(seq)", file: file, line: line)
        let decoded = compact.decoded(seq: seq)
        XCTAssertEqual(decoded.seq, seq, file: file, line: line)
        XCTAssertEqual(decoded.payload, expected.payload, file: file, line: line)
        XCTAssertEqual(decoded.apnsID, expected.apnsID, file: file, line: line)
    }

    /// Sizes that fill chunks unevenly, with records past `RecordChunk.largeRecord` (a chunk of
    /// their own) and ones that just fit.
    private static let sizes = [
        0, 25, 100, 4_096, RecordChunk.largeRecord - 200, RecordChunk.largeRecord + 1, 70_000, 1, 300,
    ]

    func testRecordsOfEverySizeComeBackExactlyAcrossChunksAndEvictions() throws {
        let store = DeliveryStore(capacity: 300)
        var appended: [DeliveryRecord] = []
        for n in 0..<1_000 {
            let record = Self.record(n, payload: Self.sizes[n % Self.sizes.count])
            appended.append(record)
            XCTAssertEqual(store.append(record), UInt64(n + 1))
        }
        let held = store.compactQuery(DeliveryFilter()).elements
        XCTAssertEqual(held.map(\.seq), Array(701...1_000))
        var smallChunks = Set<ObjectIdentifier>(), small = 0
        for (seq, compact) in held {
            let expected = appended[Int(seq) - 1]
            Self.assertHolds(compact, seq: seq, expected)
            if compact.count > RecordChunk.largeRecord {
                XCTAssertEqual(compact.chunk.capacity, compact.count, "a large record has a chunk of its own")
            } else {
                small += 1
                smallChunks.insert(ObjectIdentifier(compact.chunk))
            }
        }
        XCTAssertLessThan(smallChunks.count, small / 4, "small records share chunks")
    }

    func testAChunkIsFreedWhenItsLastRecordGoesAndNotBefore() throws {
        // Records of 10 KB: a few to a chunk, so chunks are replaced while the ring holds 10.
        let store = DeliveryStore(capacity: 10)
        store.append(Self.record(0, payload: 10_000))
        weak let first = try XCTUnwrap(store.compactQuery(DeliveryFilter()).elements.first).record.chunk
        func ringHoldsFirst() -> Bool {
            store.compactQuery(DeliveryFilter()).elements.contains { $0.record.chunk === first }
        }
        var n = 1
        while ringHoldsFirst() && n < 100 {
            XCTAssertNotNil(first, "alive while the ring holds one of its records (\(n) appended)")
            store.append(Self.record(n, payload: 10_000))
            n += 1
        }
        XCTAssertGreaterThan(n, 10, "its records are evicted one by one: the ring holds 10")
        XCTAssertNil(first, "freed once the ring holds none of its records")

        // After a clear the current chunk stays current; it goes once full and emptied.
        let small = DeliveryStore(capacity: 10)
        small.append(Self.record(0, payload: 200))
        weak let current = try XCTUnwrap(small.compactQuery(DeliveryFilter()).elements.first).record.chunk
        small.clear()
        small.append(Self.record(1, payload: RecordChunk.size))  // a chunk of its own
        XCTAssertNotNil(current, "the current chunk stays for the next appends")
        for m in 0..<400 { small.append(Self.record(2 + m, payload: 200)) }
        XCTAssertNil(current, "and goes when full and no record is left in it")
    }

    func testARecordCopiedOutOutlivesItsEviction() throws {
        let store = DeliveryStore(capacity: 5)
        for n in 0..<5 { store.append(Self.record(n, payload: 500)) }
        let copied = store.compactQuery(DeliveryFilter()).elements
        for n in 5..<2_000 { store.append(Self.record(n, payload: 500)) }
        XCTAssertNil(store.record(seq: 1))
        for (seq, compact) in copied {
            let expected = Self.record(Int(seq) - 1, payload: 500)
            Self.assertHolds(compact, seq: seq, expected)
        }
    }

    /// Stores `record` in full and returns its sequence number and template (the echoed
    /// `apns-id` stays; receive time and stream id change).
    private static func appendModel(_ record: DeliveryRecord, to store: DeliveryStore) throws -> (
        UInt64, CompactRecordTemplate
    ) {
        let (seq, template) = CompactRecord.withEncoded(record) { bytes, landmarks in
            (
                store.append(bytes, status: record.status, reason: record.reason),
                CompactRecordTemplate(bytes, landmarks: landmarks, apnsIDGenerated: false)
            )
        }
        return (seq, try XCTUnwrap(template))
    }

    /// `model` with the per-push fields of repeat `n`.
    private static func repeated(_ model: DeliveryRecord, _ n: Int) -> DeliveryRecord {
        var next = model
        next.receivedAt = model.receivedAt + Double(n) / 4
        next.streamID = Int32(1 + 2 * n * n)  // varints of 1 to 3 bytes
        return next
    }

    /// A push that repeats its model is stored as a delta of some 30 bytes that reads back as the
    /// full record; the model's chunk lives while a stored repeat refers to it, even after the
    /// model itself has left the ring, and goes with the last of them.
    func testRepeatsAreDeltasThatKeepTheirModelsChunk() throws {
        let store = DeliveryStore(capacity: 8)
        let model = Self.record(0, payload: 100)
        let (modelSeq, template) = try Self.appendModel(model, to: store)
        weak let modelChunk = try XCTUnwrap(store.compactQuery(DeliveryFilter()).elements.first).record.chunk
        // Fillers of 15 KB (not large enough for their own chunk) until the current chunk is another.
        var filler = 1
        func newest() -> CompactRecord { store.compactQuery(DeliveryFilter()).elements.last!.record }
        while newest().chunk === modelChunk {
            store.append(Self.record(filler, payload: 15_000))
            filler += 1
        }
        XCTAssertNotNil(store.record(seq: modelSeq), "the model is still in the ring")

        var repeats: [(seq: UInt64, record: DeliveryRecord)] = []
        while store.record(seq: modelSeq) != nil {
            let n = repeats.count + 1
            let next = Self.repeated(model, n)
            let rewrite = try XCTUnwrap(
                template.rewrite(
                    receivedAt: next.receivedAt, streamID: next.streamID,
                    apnsID: .text(next.apnsID), uniqueID: nil))
            let seq = try XCTUnwrap(
                store.append(repeating: modelSeq, template: template, rewrite, status: 200, reason: nil))
            repeats.append((seq, next))
            let stored = newest()
            XCTAssertTrue(stored.isRepeat)
            XCTAssertFalse(stored.chunk === modelChunk, "the delta is in the current chunk")
            XCTAssertLessThan(stored.storedCount, 40, "a delta, not a copy of the \(stored.count)-byte record")
        }
        XCTAssertNotNil(modelChunk, "the model has left the ring; its repeats keep its chunk")
        for (seq, expected) in repeats where store.record(seq: seq) != nil {
            let held = try XCTUnwrap(store.compactQuery(DeliveryFilter(after: seq - 1)).elements.first)
            Self.assertHolds(held.record, seq: seq, expected)
        }
        // Filters read repeats as full records.
        let repeatsHeld = repeats.filter { store.record(seq: $0.seq) != nil }.count
        XCTAssertGreaterThan(repeatsHeld, 0)
        XCTAssertEqual(store.count(matching: DeliveryFilter(apnsID: model.apnsID)), repeatsHeld)
        XCTAssertEqual(
            store.query(DeliveryFilter(apnsID: model.apnsID)).elements.map(\.streamID),
            repeats.suffix(repeatsHeld).map(\.record.streamID))

        let rewrite = try XCTUnwrap(
            template.rewrite(receivedAt: 1, streamID: 1, apnsID: .text(model.apnsID), uniqueID: nil))
        XCTAssertNil(
            store.append(repeating: modelSeq, template: template, rewrite, status: 200, reason: nil),
            "no repeat of a model that has left the ring")

        // A repeat's model must be a full record.
        let lastRepeat = try XCTUnwrap(repeats.last).seq
        XCTAssertNil(store.append(repeating: lastRepeat, template: template, rewrite, status: 200, reason: nil))

        while store.compactQuery(DeliveryFilter()).elements.contains(where: { $0.record.isRepeat }) {
            store.append(Self.record(filler, payload: 100))
            filler += 1
        }
        XCTAssertNil(modelChunk, "freed with the last repeat that referred to it")
    }
}
