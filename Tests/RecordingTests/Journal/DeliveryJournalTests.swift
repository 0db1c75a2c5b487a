import Foundation
import XCTest

@testable import APNsCore
@testable import Recording
@testable import TestFixtures

/// The journal written by a store and read back into a new one (`DeliveryJournal`,
/// `JournalReader`, `DeliveryStore.attach`): what is read back equals what was stored, byte
/// for byte, with its seq, and numbering goes on.
final class DeliveryJournalTests: XCTestCase {
    private typealias F = StoreFixtures

    private func temporaryPath() -> String {
        let path = NSTemporaryDirectory() + "journal-\(UUID().uuidString).ndjson"
        addTeardownBlock { unlink(path) }
        return path
    }

    /// A store journaling to `path` after putting back what it holds.
    private func journaled(
        _ path: String, capacity: Int = 100, sync: JournalSync = .batch
    ) throws -> (DeliveryStore, DeliveryJournal, JournalContents) {
        let contents = try JournalReader.read(path: path, capacity: capacity)
        let journal = try DeliveryJournal(path: path, sync: sync, contents: contents, report: { _ in })
        let store = DeliveryStore(capacity: capacity)
        store.attach(journal, restoring: contents)
        return (store, journal, contents)
    }

    private func bytes(_ record: DeliveryRecord?) -> [UInt8]? { record.map { CompactRecord($0).bytes } }

    func testRecordsComeBackByteForByteWithTheirSeqAndNumberingGoesOn() throws {
        let path = temporaryPath()
        let (store, journal, _) = try journaled(path)
        // Bytes as sent: invalid UTF-8 and an integer beyond 2^53 in the payload.
        store.append(F.record(payload: [0x7B, 0x22, 0x61, 0x22, 0x3A, 0xFF, 0x7D]))
        store.append(F.record(topic: "t2", payload: Array(#"{"aps":{"badge":99999999999999999999999}}"#.utf8)))
        store.append(F.record(status: 400, reason: .badDeviceToken))
        let before = (1...3).map { bytes(store.record(seq: $0)) }
        journal.close()

        let (again, journal2, contents) = try journaled(path)
        defer { journal2.close() }
        XCTAssertEqual(contents.records.map(\.seq), [1, 2, 3])
        XCTAssertEqual((1...3).map { bytes(again.record(seq: $0)) }, before)
        XCTAssertEqual(again.stats().byStatus, [200: 2, 400: 1])
        XCTAssertEqual(again.stats().byReason, [.badDeviceToken: 1])
        XCTAssertEqual(again.append(F.record()), 4)
    }

    func testACorrectionReplacesItsRecordWhenReadBack() throws {
        let path = temporaryPath()
        let (store, journal, _) = try journaled(path)
        store.append(F.record())
        store.append(F.record())
        XCTAssertTrue(store.markUnanswered(seq: 1, cause: .streamResetByClient))
        journal.close()
        let (again, journal2, _) = try journaled(path)
        defer { journal2.close() }
        XCTAssertEqual(again.record(seq: 1)?.status, 0)
        XCTAssertEqual(again.record(seq: 1)?.unanswered, .streamResetByClient)
        XCTAssertEqual(again.record(seq: 2)?.status, 200)
        XCTAssertEqual(again.stats().byStatus, [0: 1, 200: 1])
    }

    func testAClearIsAMarkerLineAndSeqGoesOnAfterIt() throws {
        let path = temporaryPath()
        let (store, journal, _) = try journaled(path)
        store.append(F.record())
        store.append(F.record())
        store.clear()
        store.append(F.record(topic: "after"))
        journal.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains(#"{"clear":true,"lastSeq":2}"#), text)

        let (again, journal2, contents) = try journaled(path)
        XCTAssertEqual(contents.records.map(\.seq), [3])
        XCTAssertEqual(again.record(seq: 3)?.verdict.topic, "after")
        XCTAssertNil(again.record(seq: 1))
        let stats = again.stats()
        XCTAssertEqual(stats.lastSeq, 3)
        XCTAssertEqual(stats.cleared, 2)
        XCTAssertEqual(stats.cleared + UInt64(stats.records) + stats.evictedTotal, stats.requests)
        // A clear as the last line: nothing is put back, numbering still goes on.
        again.clear()
        journal2.close()
        let (third, journal3, _) = try journaled(path)
        defer { journal3.close() }
        XCTAssertEqual(third.stats().records, 0)
        XCTAssertEqual(third.append(F.record()), 4)
    }

    func testATornLastLineIsIgnoredAtItsOffsetAndCutOff() throws {
        let path = temporaryPath()
        let (store, journal, _) = try journaled(path)
        store.append(F.record())
        journal.close()
        let good = try Data(contentsOf: URL(fileURLWithPath: path)).count
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"seq":2,"status":200,"rec"#.utf8))  // died in the middle of a write
        handle.closeFile()

        let (again, journal2, contents) = try journaled(path)
        XCTAssertEqual(contents.tornTailOffset, good)
        XCTAssertEqual(contents.records.map(\.seq), [1])
        XCTAssertEqual(again.append(F.record()), 2)
        journal2.close()
        // The torn bytes were cut off, so the new line stands on its own.
        let (_, journal3, third) = try journaled(path)
        defer { journal3.close() }
        XCTAssertNil(third.tornTailOffset)
        XCTAssertEqual(third.records.map(\.seq), [1, 2])
    }

    func testABadLineBeforeTheLastRefusesNamingItsLine() throws {
        let path = temporaryPath()
        let (store, journal, _) = try journaled(path)
        for _ in 1...3 { store.append(F.record()) }
        journal.close()
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[2] = "not json"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try JournalReader.read(path: path, capacity: 100)) { error in
            XCTAssertEqual(error as? JournalError, JournalError(path: path, line: 3, message: "not valid JSON"))
        }
    }

    func testADamagedRecordIsRefusedBeforeItIsDecoded() throws {
        let path = temporaryPath()
        let (store, journal, _) = try journaled(path)
        for _ in 1...2 { store.append(F.record()) }
        journal.close()
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        // One base64 character of the first record changed: still base64, other bytes.
        var line = Array(lines[1])
        let at = line.count - 10
        line[at] = line[at] == "A" ? "B" : "A"
        lines[1] = String(line)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try JournalReader.read(path: path, capacity: 100)) { error in
            XCTAssertEqual((error as? JournalError)?.line, 2)
            XCTAssertEqual((error as? JournalError)?.message, "check does not match the record (a damaged line)")
        }
    }

    func testASeqGapOrAnotherVersionIsRefused() throws {
        let path = temporaryPath()
        let (store, journal, _) = try journaled(path)
        for _ in 1...3 { store.append(F.record()) }
        journal.close()
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let last = lines.removeLast()
        lines.remove(at: 2)  // seq 2
        lines.append(last)
        let gap = lines.joined(separator: "\n") + "\n"
        XCTAssertThrowsError(try JournalReader.read(Array(gap.utf8), path: path, capacity: 100)) { error in
            XCTAssertEqual(
                error as? JournalError, JournalError(path: path, line: 3, message: "seq 3 follows 1 (expected 2)"))
        }
        let other = #"{"journal":"mock-apns","version":99}"# + "\n" + lines.dropFirst().joined(separator: "\n") + "\n"
        XCTAssertThrowsError(try JournalReader.read(Array(other.utf8), path: path, capacity: 100)) { error in
            XCTAssertEqual((error as? JournalError)?.line, 1)
        }
    }

    func testOnlyTheNewestCapacityComeBackTheRestCountAsEvicted() throws {
        let path = temporaryPath()
        let (store, journal, _) = try journaled(path, capacity: 10)
        for i in 1...25 { store.append(F.record(topic: "t\(i)")) }
        journal.close()
        let (again, journal2, contents) = try journaled(path, capacity: 3)
        defer { journal2.close() }
        XCTAssertEqual(contents.records.map(\.seq), [23, 24, 25])
        XCTAssertEqual(again.record(seq: 23)?.verdict.topic, "t23")
        let stats = again.stats()
        XCTAssertEqual(stats.evicted, 22)
        XCTAssertEqual(stats.evictedTotal, 22)
        XCTAssertEqual(stats.cleared, 0)
        XCTAssertEqual(stats.requests, 25)
    }

    func testWithSyncAlwaysAwaitDurableReturnsOnceTheRecordIsInTheFile() throws {
        let path = temporaryPath()
        let (store, journal, _) = try journaled(path, sync: .always)
        defer { journal.close() }
        store.append(F.record(apnsID: "0A1B2C3D-0000-4000-8000-000000000001"))
        journal.awaitDurable()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains(#""apnsId":"0A1B2C3D-0000-4000-8000-000000000001""#), text)
        XCTAssertGreaterThanOrEqual(journal.stats.syncs, 1)
        journal.awaitDurable()  // nothing waiting: at once
    }

    func testARepeatIsWrittenOutInFull() throws {
        let path = temporaryPath()
        let (store, journal, _) = try journaled(path)
        var model = F.record()
        model.streamID = 1
        let (modelSeq, template) = CompactRecord.withEncoded(model) { bytes, landmarks in
            (
                store.append(bytes, status: model.status, reason: model.reason),
                CompactRecordTemplate(bytes, landmarks: landmarks, apnsIDGenerated: false)
            )
        }
        let templateValue = try XCTUnwrap(template)
        let rewrite = try XCTUnwrap(
            templateValue.rewrite(
                receivedAt: 2, streamID: 3, apnsID: .text("0A1B2C3D-0000-4000-8000-000000000002"), uniqueID: nil))
        let repeatSeq = try XCTUnwrap(
            store.append(repeating: modelSeq, template: templateValue, rewrite, status: 200, reason: nil))
        let stored = bytes(store.record(seq: repeatSeq))
        journal.close()
        let (again, journal2, _) = try journaled(path)
        defer { journal2.close() }
        XCTAssertEqual(bytes(again.record(seq: repeatSeq)), stored)
        XCTAssertEqual(again.record(seq: repeatSeq)?.streamID, 3)
    }
}
