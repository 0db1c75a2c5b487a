import Devices
import XCTest

/// docs/device-model.md §2.1: store and forward, one stored notification per app per device.
final class LifecycleStorageTests: XCTestCase {
    typealias F = LifecycleFixture

    struct Row {
        var name: String
        var connectivity: Connectivity
        var steps: [F.Step]
        var events: [String]
        var line: UInt

        init(_ name: String, _ connectivity: Connectivity, _ steps: [F.Step], _ events: [String], line: UInt = #line) {
            (self.name, self.connectivity, self.steps, self.events, self.line) = (
                name, connectivity, steps, events, line
            )
        }
    }

    static let rows: [Row] = [
        Row("online delivers at once", .online, [.push(F.alert(1), at: 0)], ["1 received @0", "1 delivered @0"]),
        Row(
            "offline stores, online delivers from storage", .offline,
            [.push(F.alert(1), at: 0), .connectivity(.online, at: 50)],
            ["1 received @0", "1 stored-deviceOffline @0", "1 delivered-from-storage @50"]),
        Row(
            "second replaces the first", .offline,
            [.push(F.alert(1), at: 0), .push(F.alert(2), at: 10), .connectivity(.online, at: 20)],
            [
                "1 received @0", "1 stored-deviceOffline @0", "2 received @10",
                "2 stored-deviceOffline @10 replacing 1",
                "1 replaced-by-2 @10", "2 delivered-from-storage @20",
            ]),
        Row(
            "held pushes fold into storage offline", .lowPower,
            [
                .push(F.alert(1, priority: 5), at: 0), .push(F.alert(2, priority: 5), at: 10),
                .connectivity(.offline, at: 20), .connectivity(.online, at: 30),
            ],
            [
                "1 received @0", "1 stored-powerConsiderations @0", "2 received @10",
                "2 stored-powerConsiderations @10",
                "1 stored-deviceOffline @20", "2 stored-deviceOffline @20 replacing 1", "1 replaced-by-2 @20",
                "2 delivered-from-storage @30",
            ]),
    ]

    func testStorageTable() {
        for row in Self.rows {
            let device = F.device { $0.connectivity = row.connectivity }
            XCTAssertEqual(F.run(device, row.steps).events, row.events, row.name, line: row.line)
        }
    }

    /// §3.1: the badge value a push sets stays on the device; a silent push leaves it.
    /// §2.1 history: a device keeps the newest `historyLimit` delivered and shown notifications
    /// (an eighth more at most before trimming), so a long run does not grow it without end.
    func testTheDeliveredAndShownHistoryIsBounded() throws {
        var lifecycle = DeviceLifecycle(device: F.device(), options: DeviceModelOptions(historyLimit: 8))
        for id in UInt64(1)...20 { _ = lifecycle.receive(F.alert(id), at: F.t0 + Double(id)) }
        XCTAssertTrue((8...9).contains(lifecycle.delivered.count), "\(lifecycle.delivered)")
        XCTAssertEqual(lifecycle.delivered.last, 20)
        XCTAssertEqual(lifecycle.delivered, Array(UInt64(21 - lifecycle.delivered.count)...20))
        XCTAssertEqual(lifecycle.shown.map(\.push.id), lifecycle.delivered)
        XCTAssertThrowsError(try lifecycle.interact(.tap, with: 1, at: F.t0 + 30))
        XCTAssertNoThrow(try lifecycle.interact(.tap, with: 20, at: F.t0 + 30))
    }

    func testBadgeIsKeptAfterThePush() {
        var lifecycle = DeviceLifecycle(device: F.device())
        _ = lifecycle.receive(F.alert(1, body: #"{"aps":{"alert":"a","badge":5}}"#), at: F.t0)
        XCTAssertEqual(lifecycle.badge, 5)
        _ = lifecycle.receive(F.background(2), at: F.t0 + 1)
        XCTAssertEqual(lifecycle.badge, 5)
        _ = lifecycle.receive(F.alert(3, body: #"{"aps":{"badge":0}}"#), at: F.t0 + 2)
        XCTAssertEqual(lifecycle.badge, 0)
        XCTAssertEqual(lifecycle.delivered, [1, 2, 3])
    }
}
