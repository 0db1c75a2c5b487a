import Recording
import XCTest

@testable import ControlAPI

/// One wait type serves both stores; a new wait has looked at nothing, so its first evaluation
/// always counts (whatever the store's generation).
final class StoreWaitTests: XCTestCase {
    func testANewWaitOfEitherStoreHasSeenNothing() {
        let deliveries = StoreWait(filter: DeliveryFilter(), count: 2, timeoutMilliseconds: 100)
        let events = StoreWait(filter: ConnectionEventFilter(), count: 3, timeoutMilliseconds: 0)
        XCTAssertEqual(deliveries.count, 2)
        XCTAssertEqual(deliveries.timeoutMilliseconds, 100)
        XCTAssertEqual(events.count, 3)
        for (generation, clears, matched, scanned) in [
            (deliveries.seenGeneration, deliveries.seenClears, deliveries.matched, deliveries.scannedSeq),
            (events.seenGeneration, events.seenClears, events.matched, events.scannedSeq),
        ] {
            XCTAssertEqual(generation, .max)
            XCTAssertEqual(clears, .max)
            XCTAssertEqual(matched, 0)
            XCTAssertEqual(scanned, 0)
        }
        XCTAssertEqual(ControlWait.events(events).timeoutMilliseconds, 0)
        XCTAssertEqual(ControlWait.deliveries(deliveries).timeoutMilliseconds, 100)
    }
}
