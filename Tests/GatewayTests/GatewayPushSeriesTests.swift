import XCTest

@testable import APNsCore
@testable import Gateway
@testable import Recording
@testable import TestFixtures

/// Every push is counted under its series (`DeliveryStore.pushSeries()`, `GET /metrics`) with
/// the listener, environment, push type and priority, whichever way its record is stored: in
/// full, as a repeat of the previous record, or as a variant of it.
final class GatewayPushSeriesTests: XCTestCase {
    private let sandbox = PushOrigin(id: 1, listener: "east", environment: .sandbox, peer: "127.0.0.1:1")
    private let production = PushOrigin(id: 2, listener: "west", environment: .production, peer: "127.0.0.1:2")

    /// Pushes a mix on two connections, with memos (repeats and variants) or without.
    private func pushMix(memos: Bool) -> (DeliveryStore, PreviousRequest?) {
        let gateway = Gateway(store: DeliveryStore(capacity: 1_000), registry: DeviceRegistry(), options: .init())
        let memo = memos ? PreviousRequest() : nil
        let otherMemo = memos ? PreviousRequest() : nil
        var stream: Int32 = 1
        func push(_ request: HTTP2Request, on origin: PushOrigin, _ memo: PreviousRequest?) {
            _ = gateway.handle(request, connection: origin, streamID: stream, memo: memo)
            stream += 2
        }
        let request = ValidationFixture.request()
        for _ in 0..<5 { push(request, on: sandbox, memo) }  // repeats
        for n in 0..<4 {  // a new token each push: variants
            push(ValidationFixture.request(token: String(repeating: "c\(n)", count: 32)), on: sandbox, memo)
        }
        push(ValidationFixture.request(token: "abc"), on: sandbox, memo)  // 400 BadDeviceToken
        let background = ValidationFixture.request(
            replacing: ["apns-push-type": "background", "apns-priority": "5"], body: #"{"aps":{"content-available":1}}"#
        )
        for _ in 0..<3 { push(background, on: production, otherMemo) }
        return (gateway.store, memo)
    }

    private func counts(_ store: DeliveryStore) -> [PushSeries: UInt64] {
        Dictionary(uniqueKeysWithValues: store.pushSeries().map { ($0.series, $0.count) })
    }

    func testEverySeriesCountedWithItsLabelsOnEveryRecordPath() {
        let (fast, memo) = pushMix(memos: true)
        XCTAssertGreaterThan(memo?.recordHits ?? 0, 0, "repeats were stored as deltas")
        XCTAssertGreaterThan(memo?.variantHits ?? 0, 0, "and variants from the model")
        let east = PushLabels(listener: "east", environment: .sandbox, pushType: .alert, priority: 10)
        let west = PushLabels(listener: "west", environment: .production, pushType: .background, priority: 5)
        XCTAssertEqual(
            counts(fast),
            [
                PushSeries(labels: east, status: 200, reason: nil): 9,
                PushSeries(labels: east, status: 400, reason: .badDeviceToken): 1,
                PushSeries(labels: west, status: 200, reason: nil): 3,
            ])
        let (full, _) = pushMix(memos: false)
        XCTAssertEqual(counts(fast), counts(full), "the same series as every record encoded in full")
        let total = fast.pushSeries().reduce(0) { $0 + $1.count }
        XCTAssertEqual(total, fast.stats().requests)
    }
}
