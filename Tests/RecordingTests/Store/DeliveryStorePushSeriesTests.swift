import XCTest

@testable import APNsCore
@testable import Recording
@testable import TestFixtures

/// `DeliveryStore.pushSeries()`: records by listener, environment, push type, priority, status
/// and reason since start; a clear keeps them, a correction moves its record between series.
final class DeliveryStorePushSeriesTests: XCTestCase {
    private typealias F = StoreFixtures

    private func counts(_ store: DeliveryStore) -> [PushSeries: UInt64] {
        Dictionary(uniqueKeysWithValues: store.pushSeries().map { ($0.series, $0.count) })
    }

    func testCountsBySeriesSurviveAClearAndFollowCorrections() throws {
        let store = DeliveryStore(capacity: 2)
        let alert = PushLabels(F.record())
        XCTAssertEqual(alert, PushLabels(listener: "sandbox", environment: .sandbox, pushType: .alert, priority: 10))
        store.append(F.record())
        store.append(F.record())
        store.append(F.record(status: 400, reason: .badDeviceToken))
        let unanswered = store.append(F.record())
        XCTAssertEqual(store.stats().evicted, 2, "the ring evicts; the series do not forget")
        store.clear()
        XCTAssertTrue(store.markUnanswered(seq: unanswered, cause: .streamResetByClient) == false, "cleared")
        let again = store.append(F.record())
        XCTAssertTrue(store.markUnanswered(seq: again, cause: .streamResetByClient))
        XCTAssertEqual(
            counts(store),
            [
                PushSeries(labels: alert, status: 200, reason: nil): 3,
                PushSeries(labels: alert, status: 400, reason: .badDeviceToken): 1,
                PushSeries(labels: alert, status: 0, reason: nil): 1,
            ])
        XCTAssertEqual(store.pushSeries().reduce(0) { $0 + $1.count }, store.stats().requests)
        XCTAssertEqual(store.pushSeries().map(\.series.status), [200, 400, 0], "in order of first appearance")
    }

    func testASeriesThatFallsToZeroIsLeftOut() {
        let store = DeliveryStore()
        let seq = store.append(F.record())
        XCTAssertTrue(store.markUnanswered(seq: seq, cause: .connectionClosed))
        XCTAssertEqual(store.pushSeries().map(\.series.status), [0])
        XCTAssertEqual(store.pushSeries().map(\.count), [1])
    }

    func testCompactAppendsWithoutLabelsCountAsUnknown() {
        let store = DeliveryStore()
        let record = F.record()
        CompactRecord.withEncoded(record) { bytes, _ in _ = store.append(bytes, status: 200, reason: nil) }
        XCTAssertEqual(counts(store), [PushSeries(labels: .unknown, status: 200, reason: nil): 1])
    }
}
