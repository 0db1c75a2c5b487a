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

    func testDiscardTable() {
        for row in Self.rows {
            let events = F.run(F.device(row.change), [.push(row.push, at: 0)]).events
            XCTAssertEqual(events, ["1 received @0", row.last], row.name, line: row.line)
        }
    }
}
