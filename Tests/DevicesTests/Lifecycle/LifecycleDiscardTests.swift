import APNsCore
import Devices
import XCTest

/// docs/device-model.md §2.3: Discarded - Token Unregistered and Discarded - Disabled.
final class LifecycleDiscardTests: XCTestCase {
    typealias F = LifecycleFixture

    struct Row {
        var name: String
        var change: @Sendable (inout VirtualDevice) -> Void
        var push: DevicePush
        var last: String
        var line: UInt
    }

    static func row(
        _ name: String, _ push: DevicePush, _ last: String, line: UInt = #line,
        _ change: @escaping @Sendable (inout VirtualDevice) -> Void
    ) -> Row { Row(name: name, change: change, push: push, last: last, line: line) }

    static let voip = DevicePush(id: 1, pushType: .voip, body: Array(#"{"aps":{}}"#.utf8))

    static let rows: [Row] = [
        row("app removed", F.alert(1), "1 discarded-tokenUnregistered @0") { $0.installed = false },
        row("app removed, device offline", F.alert(1), "1 discarded-tokenUnregistered @0") {
            $0.installed = false
            $0.connectivity = .offline
        },
        row("app removed, background push", F.background(1), "1 discarded-tokenUnregistered @0") {
            $0.installed = false
        },
        row("not authorized, alert push", F.alert(1), "1 discarded-disabled @0") { $0.settings.authorized = false },
        row("not authorized, offline", F.alert(1), "1 discarded-disabled @0") {
            $0.settings.authorized = false
            $0.connectivity = .offline
        },
        row("not authorized, background push passes", F.background(1), "1 delivered @0") {
            $0.settings.authorized = false
        },
        row("not authorized, voip passes", voip, "1 delivered @0") { $0.settings.authorized = false },
        row("authorized with alerts off: delivered", F.alert(1), "1 delivered @0") { $0.settings.alert = false },
    ]

    /// Stored first, then the app is removed or notifications disabled: at the next attempt,
    /// Discarded (From Storage).
    static let fromStorage: [LifecycleStorageTests.Row] = [
        LifecycleStorageTests.Row(
            "removed while stored", .offline,
            [.push(F.alert(1), at: 0), .update({ $0.installed = false }, at: 10), .connectivity(.online, at: 20)],
            ["1 received @0", "1 stored-deviceOffline @0", "1 discarded-tokenUnregistered-from-storage @20"]),
        LifecycleStorageTests.Row(
            "disabled while stored", .offline,
            [
                .push(F.alert(1), at: 0), .update({ $0.settings.authorized = false }, at: 10),
                .connectivity(.online, at: 20),
            ],
            ["1 received @0", "1 stored-deviceOffline @0", "1 discarded-disabled-from-storage @20"]),
        LifecycleStorageTests.Row(
            "disabled while held for power", .lowPower,
            [
                .push(F.alert(1, priority: 5), at: 0), .update({ $0.settings.authorized = false }, at: 10),
                .advance(2000),
            ],
            ["1 received @0", "1 stored-powerConsiderations @0", "1 discarded-disabled-from-storage @900"]),
        LifecycleStorageTests.Row(
            "removed while held past the budget", .online,
            [
                .push(F.background(9), at: 0), .push(F.background(1), at: 10),
                .update({ $0.installed = false }, at: 20),
                .advance(4000),
            ],
            [
                "9 received @0", "9 delivered @0", "1 received @10", "1 stored-backgroundBudget @10",
                "1 discarded-tokenUnregistered-from-storage @3600",
            ]),
        LifecycleStorageTests.Row(
            "still installed and authorized: delivered", .offline,
            [.push(F.alert(1), at: 0), .update({ $0.settings.alert = false }, at: 10), .connectivity(.online, at: 20)],
            ["1 received @0", "1 stored-deviceOffline @0", "1 delivered-from-storage @20"]),
    ]

    func testDiscardFromStorageTable() {
        // A background budget of one per hour; bursts 900 s after the first hold.
        let options = DeviceModelOptions(backgroundBudget: 1, lowPowerBurstSeconds: 900, lowPowerBurstJitterSeconds: 0)
        for row in Self.fromStorage {
            let device = F.device { $0.connectivity = row.connectivity }
            XCTAssertEqual(F.run(device, options: options, row.steps).events, row.events, row.name, line: row.line)
        }
    }

    func testDiscardTable() {
        for row in Self.rows {
            let events = F.run(F.device(row.change), [.push(row.push, at: 0)]).events
            XCTAssertEqual(events, ["1 received @0", row.last], row.name, line: row.line)
        }
    }
}
