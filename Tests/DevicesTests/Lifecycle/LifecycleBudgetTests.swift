import Devices
import XCTest

/// docs/device-model.md §2.6: the background budget (default 3 per hour), held or dropped past it.
final class LifecycleBudgetTests: XCTestCase {
    typealias F = LifecycleFixture

    struct Row {
        var name: String
        var options: DeviceModelOptions
        var appState: AppState
        var steps: [F.Step]
        var events: [String]
        var line: UInt

        init(
            _ name: String, options: DeviceModelOptions = DeviceModelOptions(), app: AppState = .background,
            _ steps: [F.Step], _ events: [String], line: UInt = #line
        ) {
            (self.name, self.options, self.appState, self.steps, self.events, self.line) =
                (name, options, app, steps, events, line)
        }
    }

    /// Three background pushes at 0, 10 and 20: the budget's worth.
    static let three: [F.Step] = [
        .push(F.background(1), at: 0), .push(F.background(2), at: 10), .push(F.background(3), at: 20),
    ]
    static let threeDelivered = [
        "1 received @0", "1 delivered @0", "2 received @10", "2 delivered @10", "3 received @20", "3 delivered @20",
    ]

    static let rows: [Row] = [
        Row(
            "fourth held until the hour frees",
            three + [.push(F.background(4), at: 30), .advance(3599), .advance(4000)],
            threeDelivered + ["4 received @30", "4 stored-backgroundBudget @30", "4 delivered-from-storage @3600"]),
        Row(
            "dropped with overBudget drop", options: DeviceModelOptions(overBudget: .drop),
            three + [.push(F.background(4), at: 30)],
            threeDelivered + ["4 received @30", "4 discarded-backgroundBudget @30"]),
        Row(
            "a newer one replaces the held one",
            three + [.push(F.background(4), at: 30), .push(F.background(5), at: 40), .advance(4000)],
            threeDelivered + [
                "4 received @30", "4 stored-backgroundBudget @30", "5 received @40",
                "5 stored-backgroundBudget @40 replacing 4",
                "4 replaced-by-5 @40", "5 delivered-from-storage @3600",
            ]),
        Row(
            "foreground delivers the held one at once",
            three + [.push(F.background(4), at: 30), .app(.foreground, at: 40)],
            threeDelivered + ["4 received @30", "4 stored-backgroundBudget @30", "4 delivered-from-storage @40"]),
        Row(
            "force-quit discards the held one",
            three + [.push(F.background(4), at: 30), .app(.forceQuit, at: 40), .advance(4000)],
            threeDelivered + [
                "4 received @30", "4 stored-backgroundBudget @30", "4 discarded-appTerminated-from-storage @40",
            ]),
        Row(
            "terminated discards the held one", three + [.push(F.background(4), at: 30), .app(.notRunning, at: 40)],
            threeDelivered + [
                "4 received @30", "4 stored-backgroundBudget @30", "4 discarded-appTerminated-from-storage @40",
            ]),
        Row(
            "a force-quit app is not woken: its pushes neither need nor use budget", app: .forceQuit,
            three + [
                .push(F.background(4), at: 30), .app(.background, at: 40), .push(F.background(5), at: 50),
                .push(F.background(6), at: 60), .push(F.background(7), at: 70), .push(F.background(8), at: 80),
            ],
            threeDelivered + [
                "4 received @30", "4 delivered @30", "5 received @50", "5 delivered @50", "6 received @60",
                "6 delivered @60", "7 received @70", "7 delivered @70", "8 received @80",
                "8 stored-backgroundBudget @80",
            ]),
        Row(
            "no budget in the foreground", app: .foreground, three + [.push(F.background(4), at: 30)],
            threeDelivered + ["4 received @30", "4 delivered @30"]),
        Row(
            "alert pushes draw nothing", three + [.push(F.alert(4), at: 30)],
            threeDelivered + ["4 received @30", "4 delivered @30"]),
        Row(
            "a budget of 1 per minute",
            options: DeviceModelOptions(backgroundBudget: 1, backgroundBudgetWindowSeconds: 60),
            [.push(F.background(1), at: 0), .push(F.background(2), at: 10), .advance(100)],
            [
                "1 received @0", "1 delivered @0", "2 received @10", "2 stored-backgroundBudget @10",
                "2 delivered-from-storage @60",
            ]),
    ]

    /// A drop past the budget has Apple's console name, "Discarded - Expired" (the decision flow's
    /// discard under a power restriction), and counts as expired in the metrics; the cause says
    /// why. A held push discarded when the app is terminated is MockAPNs's own state.
    func testADropIsNamedAndCountedAsTheConsoleDoes() throws {
        XCTAssertEqual(
            LifecycleState.discarded(.backgroundBudget, fromStorage: false).consoleName, "Discarded - Expired")
        XCTAssertEqual(
            LifecycleState.discarded(.backgroundBudget, fromStorage: true).consoleName,
            "Discarded - Expired (From Storage)")
        XCTAssertEqual(
            LifecycleState.discarded(.appTerminated, fromStorage: true).consoleName,
            "Discarded - App Terminated (From Storage)")
        let book = DeviceBook(options: DeviceModelOptions(backgroundBudget: 1, overBudget: .drop), clock: { F.t0 })
        try book.put(F.device())
        book.receive(F.background(1), token: F.token)
        book.receive(F.background(2), token: F.token)
        XCTAssertEqual(book.notification(2)?.state, .discarded(.backgroundBudget, fromStorage: false))
        XCTAssertEqual(book.metrics().total.discarded, ["expired": 1])
    }

    func testBudgetTable() {
        for row in Self.rows {
            let device = F.device { $0.appState = row.appState }
            XCTAssertEqual(F.run(device, options: row.options, row.steps).events, row.events, row.name, line: row.line)
        }
    }
}
