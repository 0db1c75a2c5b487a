import Devices
import XCTest

/// docs/device-model.md §2, "Time": the server's clock moved backwards (`/v1/clock`). A device's
/// transitions are never stamped before its latest one, and the background budget counts only the
/// deliveries at or before now.
final class LifecycleClockTests: XCTestCase {
    typealias F = LifecycleFixture

    struct Row {
        var name: String
        var device: VirtualDevice
        var steps: [F.Step]
        var events: [String]
        var line: UInt

        init(
            _ name: String, device: VirtualDevice = F.device(), _ steps: [F.Step], _ events: [String],
            line: UInt = #line
        ) {
            (self.name, self.device, self.steps, self.events, self.line) = (name, device, steps, events, line)
        }
    }

    static let rows: [Row] = [
        Row(
            "a push after the clock went back is stamped at the latest transition",
            [.push(F.alert(1), at: 100), .push(F.alert(2), at: 50)],
            ["1 received @100", "1 delivered @100", "2 received @100", "2 delivered @100"]),
        Row(
            "coming online after the clock went back delivers at the latest transition",
            device: F.device { $0.connectivity = .offline },
            [.push(F.alert(1), at: 100), .connectivity(.online, at: 40)],
            ["1 received @100", "1 stored-deviceOffline @100", "1 delivered-from-storage @100"]),
        Row(
            "an expiration still falls due at its date, never before the latest transition",
            device: F.device { $0.connectivity = .offline },
            [.push(F.alert(1), at: 100), .push(F.alert(2, expiresIn: 60), at: 10), .advance(70)],
            [
                "1 received @100", "1 stored-deviceOffline @100", "2 received @100",
                "2 stored-deviceOffline @100 replacing 1", "1 replaced-by-2 @100",
                "2 discarded-expired-from-storage @100",
            ]),
        Row(
            "the budget does not count deliveries after now",
            [
                .push(F.background(1), at: 1000), .push(F.background(2), at: 1010),
                .push(F.background(3), at: 1020), .push(F.background(4), at: 0),
                .push(F.background(5), at: 10), .push(F.background(6), at: 20), .push(F.background(7), at: 30),
            ],
            [
                "1 received @1000", "1 delivered @1000", "2 received @1010", "2 delivered @1010",
                "3 received @1020", "3 delivered @1020", "4 received @1020", "4 delivered @1020",
                "5 received @1020", "5 delivered @1020", "6 received @1020", "6 delivered @1020",
                "7 received @1020", "7 stored-backgroundBudget @1020",
            ]),
    ]

    func testTheClockMovedBackTable() {
        for row in Self.rows {
            XCTAssertEqual(F.run(row.device, row.steps).events, row.events, row.name, line: row.line)
        }
    }

    /// A budget-held push goes out once the window frees on the clock as given, even when the
    /// clock was moved back before it was held.
    func testAHeldPushGoesOutOnTheClockAsGiven() {
        let steps: [F.Step] = [
            .push(F.background(1), at: 5000), .push(F.background(2), at: 0), .push(F.background(3), at: 10),
            .push(F.background(4), at: 20), .push(F.background(5), at: 30), .advance(3600),
        ]
        let events = F.run(F.device(), steps).events
        XCTAssertEqual(events.suffix(2), ["5 stored-backgroundBudget @5000", "5 delivered-from-storage @5000"])
    }
}
