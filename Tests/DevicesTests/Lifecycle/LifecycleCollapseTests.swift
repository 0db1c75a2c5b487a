import Devices
import XCTest

/// docs/device-model.md §2.4: `apns-collapse-id` coalesces on the device and in a hold.
final class LifecycleCollapseTests: XCTestCase {
    typealias F = LifecycleFixture
    typealias Row = LifecycleStorageTests.Row

    static let rows: [Row] = [
        Row(
            "same collapse ID replaces the shown one; the first stays delivered", .online,
            [.push(F.alert(1, collapse: "score"), at: 0), .push(F.alert(2, collapse: "score"), at: 10)],
            ["1 received @0", "1 delivered @0", "2 received @10", "2 delivered @10 replacing 1"]),
        Row(
            "other collapse IDs stay", .online,
            [.push(F.alert(1, collapse: "a"), at: 0), .push(F.alert(2, collapse: "b"), at: 10)],
            ["1 received @0", "1 delivered @0", "2 received @10", "2 delivered @10"]),
        Row(
            "no collapse ID stays", .online, [.push(F.alert(1), at: 0), .push(F.alert(2), at: 10)],
            ["1 received @0", "1 delivered @0", "2 received @10", "2 delivered @10"]),
        Row(
            "held at low power", .lowPower,
            [
                .push(F.alert(1, priority: 5, collapse: "c"), at: 0),
                .push(F.alert(2, priority: 5, collapse: "c"), at: 10),
                .push(F.alert(3, priority: 5, collapse: "d"), at: 20), .connectivity(.online, at: 30),
            ],
            [
                "1 received @0", "1 stored-powerConsiderations @0", "2 received @10",
                "2 stored-powerConsiderations @10 replacing 1", "1 replaced-by-2 @10", "3 received @20",
                "3 stored-powerConsiderations @20", "2 delivered-from-storage @30", "3 delivered-from-storage @30",
            ]),
        Row(
            "offline then online: one delivery", .offline,
            [
                .push(F.alert(1, collapse: "c"), at: 0), .push(F.alert(2, collapse: "c"), at: 10),
                .connectivity(.online, at: 20),
            ],
            [
                "1 received @0", "1 stored-deviceOffline @0", "2 received @10",
                "2 stored-deviceOffline @10 replacing 1",
                "1 replaced-by-2 @10", "2 delivered-from-storage @20",
            ]),
    ]

    /// The collapse on the device leaves the first Delivered in its lifecycle (Apple's console
    /// says Delivered) and shows in the device view: which notification replaced it.
    func testACollapsedDeliveryStaysDeliveredAndTheDeviceSaysWhichReplacedIt() throws {
        let book = DeviceBook(clock: { F.t0 })
        try book.put(F.device())
        book.receive(F.alert(1, collapse: "score"), token: F.token)
        book.receive(F.alert(2, collapse: "score"), token: F.token)
        XCTAssertEqual(book.notification(1)?.state, .delivered(fromStorage: false))
        XCTAssertEqual(book.notification(1)?.replacedOnDeviceBy, 2)
        XCTAssertNil(book.notification(2)?.replacedOnDeviceBy)
        XCTAssertEqual(book.lifecycle(of: F.token)?.shown.map(\.push.id), [2])
        XCTAssertEqual(book.metrics().total.replaced, 0)
        XCTAssertEqual(book.metrics().total.delivered, 2)
    }

    func testCollapseTable() {
        for row in Self.rows {
            let device = F.device { $0.connectivity = row.connectivity }
            XCTAssertEqual(F.run(device, row.steps).events, row.events, row.name, line: row.line)
        }
    }
}
