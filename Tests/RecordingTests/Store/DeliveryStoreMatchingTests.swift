import APNsCore
import JSONInput
import XCTest

@testable import Recording
@testable import TestFixtures

/// Matching for a pending verification at the cost of what changed (docs/testing.md): only
/// records after the last look, the byte check before decoding, a restart after a clear.
final class DeliveryStoreMatchingTests: XCTestCase {
    private typealias F = StoreFixtures

    func testOnlyNewRecordsAreLookedAtAndNonCandidatesAreNotDecoded() {
        let store = DeliveryStore(capacity: 1_000)
        for _ in 0..<500 { store.append(F.record()) }
        let match = DeliveryMatch(payload: [.init(path: "aps.alert", value: .string("never"))])
        var progress = store.matches(match, epoch: .max, afterSeq: 0)
        XCTAssertEqual(progress.seqs, [])
        XCTAssertTrue(progress.restarted)
        XCTAssertEqual(progress.decoded, 0, "no record spells \"never\": none decoded")
        XCTAssertEqual(progress.lastSeq, 500)
        store.append(F.record(payload: Array(#"{"aps":{"alert":"never"}}"#.utf8)))
        store.append(F.record(payload: Array(#"{"aps":{"alert":"not never"}}"#.utf8)))
        progress = store.matches(match, epoch: progress.epoch, afterSeq: progress.lastSeq)
        XCTAssertFalse(progress.restarted)
        XCTAssertEqual(progress.seqs, [501])
        XCTAssertEqual(progress.decoded, 1)
        XCTAssertEqual(progress.lastSeq, 502)
        let epoch = progress.epoch
        progress = store.matches(match, epoch: epoch, afterSeq: 502)
        XCTAssertEqual(progress.seqs, [])
        XCTAssertEqual(progress.decoded, 0)
        // A clear restarts: every stored match again.
        store.clear()
        store.append(F.record(payload: Array(#"{"aps":{"alert":"never"}}"#.utf8)))
        progress = store.matches(match, epoch: epoch, afterSeq: 502)
        XCTAssertTrue(progress.restarted)
        XCTAssertEqual(progress.seqs, [503])
        XCTAssertEqual(progress.firstSeq, 503)
    }

    func testTheRecordFilterStillAppliesAndAfterScopes() {
        let store = DeliveryStore(capacity: 100)
        store.append(F.record(topic: "a", payload: Array(#"{"k":"v"}"#.utf8)))
        store.append(F.record(topic: "b", payload: Array(#"{"k":"v"}"#.utf8)))
        store.append(F.record(topic: "b", payload: Array(#"{"k":"v"}"#.utf8)))
        let match = DeliveryMatch(topic: "b", payload: [.init(path: "k", value: .string("v"))], after: 2)
        let progress = store.matches(match, epoch: .max, afterSeq: 0)
        XCTAssertEqual(progress.seqs, [3])
        XCTAssertEqual(progress.decoded, 1)
    }
}
