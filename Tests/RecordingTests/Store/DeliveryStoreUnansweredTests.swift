import XCTest

@testable import APNsCore
@testable import Recording
@testable import TestFixtures

/// `DeliveryStore.markUnanswered`: a record stored before its answer is corrected when its
/// stream ends without response HEADERS (issue 13).
final class DeliveryStoreUnansweredTests: XCTestCase {
    private typealias F = StoreFixtures

    func testMarkUnansweredSaysNoStatusAndWhyAndMovesTheCounts() {
        let store = DeliveryStore(capacity: 10)
        store.append(F.record())  // 1
        store.append(F.record(status: 400, reason: .badDeviceToken))  // 2
        store.append(F.record())  // 3
        XCTAssertTrue(store.markUnanswered(seq: 1, cause: .connectionClosed))
        XCTAssertTrue(store.markUnanswered(seq: 2, cause: .aboveLastStreamID))
        let first = store.record(seq: 1)
        XCTAssertEqual(first?.status, 0)
        XCTAssertEqual(first?.unanswered, .connectionClosed)
        XCTAssertEqual(first?.verdict.topic, "com.example.app")  // the rest stays
        let second = store.record(seq: 2)
        XCTAssertEqual(second?.status, 0)
        XCTAssertNil(second?.reason)  // never answered: no reason was received
        XCTAssertEqual(second?.unanswered, .aboveLastStreamID)
        XCTAssertNil(store.record(seq: 3)?.unanswered)
        let stats = store.stats()
        XCTAssertEqual(stats.byStatus, [0: 2, 200: 1])
        XCTAssertEqual(stats.byReason, [:])
        XCTAssertEqual(stats.requests, 3)
        XCTAssertEqual(
            store.query(DeliveryFilter()).deliveries.map(\.unanswered), [.connectionClosed, .aboveLastStreamID, nil])
    }

    func testAStatusFilterNoLongerMatchesAnUnansweredRecord() {
        let store = DeliveryStore(capacity: 10)
        store.append(F.record())
        store.append(F.record())
        store.markUnanswered(seq: 2, cause: .connectionReset)
        XCTAssertEqual(store.query(DeliveryFilter(status: 200)).deliveries.map(\.seq), [1])
    }

    func testAReasonOfARecordWithoutStatusStays() {
        // A connection-ending credential's reason went in the GOAWAY: the record keeps it.
        let store = DeliveryStore(capacity: 10)
        store.append(F.record(status: 0, reason: .badCertificate))
        XCTAssertTrue(store.markUnanswered(seq: 1, cause: .aboveLastStreamID))
        XCTAssertEqual(store.record(seq: 1)?.reason, .badCertificate)
        XCTAssertEqual(store.stats().byStatus, [0: 1])
        XCTAssertEqual(store.stats().byReason, [.badCertificate: 1])
    }

    func testASecondCorrectionAndAGoneRecordChangeNothing() {
        let store = DeliveryStore(capacity: 1)
        store.append(F.record())
        XCTAssertTrue(store.markUnanswered(seq: 1, cause: .streamResetByClient))
        XCTAssertFalse(store.markUnanswered(seq: 1, cause: .connectionClosed))
        XCTAssertEqual(store.record(seq: 1)?.unanswered, .streamResetByClient)
        XCTAssertEqual(store.stats().byStatus, [0: 1])
        store.append(F.record())  // evicts 1
        XCTAssertFalse(store.markUnanswered(seq: 1, cause: .connectionClosed))
        XCTAssertFalse(store.markUnanswered(seq: 99, cause: .connectionClosed))
        XCTAssertEqual(store.stats().byStatus, [0: 1, 200: 1])
    }

    func testEveryCauseSurvivesTheCompactForm() {
        for cause in UnansweredCause.allCases {
            var record = F.record()
            record.status = 0
            record.unanswered = cause
            let store = DeliveryStore(capacity: 1)
            store.append(record)
            XCTAssertEqual(store.record(seq: 1)?.unanswered, cause)
            XCTAssertEqual(store.record(seq: 1)?.status, 0)
        }
    }

    /// A corrected record is no model for repeats: a later push that repeats the original one
    /// must not read back as unanswered. (The correction's cause byte makes the record longer
    /// than the template, which `append(repeating:)` refuses.)
    func testACorrectedRecordIsNoModelForRepeats() throws {
        let store = DeliveryStore(capacity: 10)
        var model = F.record(status: 0)
        model.streamID = 1
        let (modelSeq, template) = CompactRecord.withEncoded(model) { bytes, landmarks in
            (
                store.append(bytes, status: model.status, reason: model.reason),
                CompactRecordTemplate(bytes, landmarks: landmarks, apnsIDGenerated: false)
            )
        }
        let templateValue = try XCTUnwrap(template)
        XCTAssertTrue(store.markUnanswered(seq: modelSeq, cause: .connectionClosed))
        let rewrite = try XCTUnwrap(
            templateValue.rewrite(receivedAt: 2, streamID: 3, apnsID: .text(model.apnsID), uniqueID: nil))
        XCTAssertEqual(rewrite.count + 1, store.compactQuery(DeliveryFilter()).elements[0].record.count)
        XCTAssertNil(store.append(repeating: modelSeq, template: templateValue, rewrite, status: 0, reason: nil))
    }

    /// The same for a model answered 200 (found by tests/live/test_starvation.py, rapid reset):
    /// its correction is exactly as long as the original (status 200 is a two-byte varint,
    /// status 0 one byte, and the cause one more), so the length check let the repeat through,
    /// its delta was written over the corrected bytes, and reading it back stopped the server
    /// ("unknown string tag"). A corrected record is now refused as a model whatever its length.
    func testACorrectedRecordOfTheSameLengthIsNoModelForRepeats() throws {
        let store = DeliveryStore(capacity: 10)
        var model = F.record(status: 200)
        model.streamID = 1
        let (modelSeq, template) = CompactRecord.withEncoded(model) { bytes, landmarks in
            (
                store.append(bytes, status: model.status, reason: model.reason),
                CompactRecordTemplate(bytes, landmarks: landmarks, apnsIDGenerated: false)
            )
        }
        let templateValue = try XCTUnwrap(template)
        XCTAssertTrue(store.markUnanswered(seq: modelSeq, cause: .streamResetByClient))
        let rewrite = try XCTUnwrap(
            templateValue.rewrite(receivedAt: 2, streamID: 3, apnsID: .text(model.apnsID), uniqueID: nil))
        XCTAssertEqual(templateValue.count, store.compactQuery(DeliveryFilter()).elements[0].record.count)
        XCTAssertNil(store.append(repeating: modelSeq, template: templateValue, rewrite, status: 200, reason: nil))
        XCTAssertEqual(store.record(seq: modelSeq)?.unanswered, .streamResetByClient)
        XCTAssertEqual(store.compactQuery(DeliveryFilter()).elements.count, 1)
    }
}
