import XCTest

@testable import APNsCore
@testable import Recording
@testable import TestFixtures

/// `DeliveryStore.markAnswered`: a record pending on a held answer (no status, no `unanswered`
/// cause) says its status only once the answer is sent, and an incremental waiter sees it then
/// (issue 13).
final class DeliveryStorePendingTests: XCTestCase {
    private typealias F = StoreFixtures

    func testAPendingRecordSaysItsAnswerOnceSentAndTheCountsMove() {
        let store = DeliveryStore(capacity: 10)
        store.append(F.record(status: 0, reason: nil))  // 1: pending
        store.append(F.record(status: 0, reason: nil))  // 2: pending
        XCTAssertEqual(store.stats().byStatus, [0: 2])
        XCTAssertEqual(store.count(matching: DeliveryFilter(status: 200)), 0)
        XCTAssertTrue(store.markAnswered(seq: 1, as: PendingAnswer(status: 200, reason: nil)))
        XCTAssertTrue(store.markAnswered(seq: 2, as: PendingAnswer(status: 400, reason: .badDeviceToken)))
        XCTAssertEqual(store.record(seq: 1)?.status, 200)
        XCTAssertNil(store.record(seq: 1)?.unanswered)
        XCTAssertEqual(store.record(seq: 2)?.reason, .badDeviceToken)
        XCTAssertEqual(store.stats().byStatus, [200: 1, 400: 1])
        XCTAssertEqual(store.stats().byReason, [.badDeviceToken: 1])
        XCTAssertEqual(store.query(DeliveryFilter(status: 200)).deliveries.map(\.seq), [1])
    }

    func testOnlyAPendingRecordIsCompleted() {
        let store = DeliveryStore(capacity: 10)
        store.append(F.record())  // 1: answered 200 already
        store.append(F.record(status: 0, reason: nil))  // 2: ended unanswered
        XCTAssertTrue(store.markUnanswered(seq: 2, cause: .connectionReset))
        XCTAssertFalse(store.markAnswered(seq: 1, as: PendingAnswer(status: 500, reason: .internalServerError)))
        XCTAssertFalse(store.markAnswered(seq: 2, as: PendingAnswer(status: 200, reason: nil)))
        XCTAssertFalse(store.markAnswered(seq: 9, as: PendingAnswer(status: 200, reason: nil)))
        XCTAssertEqual(store.record(seq: 1)?.status, 200)
        XCTAssertEqual(store.record(seq: 2)?.unanswered, .connectionReset)
        XCTAssertEqual(store.stats().byStatus, [0: 1, 200: 1])
    }

    /// A waiter that counted the records so far recounts after a correction: the record it saw
    /// pending matches a status filter now, though no record was appended.
    func testAnIncrementalWaiterSeesACorrectedRecord() {
        let store = DeliveryStore(capacity: 10)
        store.append(F.record(status: 0, reason: nil))
        let filter = DeliveryFilter(status: 200)
        let before = store.countMatching(filter, clears: .max, afterSeq: 0)
        XCTAssertEqual(before.count, 0)
        let generation = store.generation
        let unchanged = store.countMatching(filter, clears: before.clears, afterSeq: before.lastSeq)
        XCTAssertEqual(unchanged.count, 0)
        XCTAssertFalse(unchanged.restarted)
        store.markAnswered(seq: 1, as: PendingAnswer(status: 200, reason: nil))
        XCTAssertNotEqual(store.generation, generation, "a correction is a change for waiters")
        let after = store.countMatching(filter, clears: before.clears, afterSeq: before.lastSeq)
        XCTAssertTrue(after.restarted)
        XCTAssertEqual(after.count, 1)
    }
}
