import APNsCore
import Devices
import XCTest

/// docs/device-model.md §2.3: a virtual device's app not installed makes its token unregistered
/// (410 `Unregistered`) since the moment `installed` went false, with `removedApp` `unregistered`.
final class DeviceRegistrationInstalledTests: XCTestCase {
    typealias F = LifecycleFixture

    struct Row {
        var name: String
        var installed: Bool
        var given: Int64?
        var previous: (installed: Bool, unregisteredAt: Int64?)?
        var removedApp: DeviceModelOptions.RemovedApp
        var expected: Int64?
        var line: UInt

        init(
            _ name: String, installed: Bool, given: Int64? = nil,
            previous: (installed: Bool, unregisteredAt: Int64?)? = nil,
            removedApp: DeviceModelOptions.RemovedApp = .unregistered, _ expected: Int64?, line: UInt = #line
        ) {
            (self.name, self.installed, self.given, self.previous, self.removedApp, self.expected, self.line) =
                (name, installed, given, previous, removedApp, expected, line)
        }
    }

    static let now: Int64 = 1_700_000_000_000

    static let rows: [Row] = [
        Row("installed: nothing", installed: true, nil),
        Row("registered not installed: now", installed: false, now),
        Row("not installed, a time given: that time", installed: false, given: 5, 5),
        Row("removed now", installed: false, previous: (true, nil), now),
        Row("still removed: the moment it went", installed: false, given: 7, previous: (false, 7), 7),
        Row("PUT again while removed: the moment it went", installed: false, previous: (false, 7), 7),
        Row("installed again: cleared", installed: true, given: 7, previous: (false, 7), nil),
        Row("installed again with another time given: kept", installed: true, given: 9, previous: (false, 7), 9),
        Row("removedApp discarded: untouched", installed: false, previous: (true, nil), removedApp: .discarded, nil),
    ]

    func testTable() {
        for row in Self.rows {
            let device = F.device { $0.installed = row.installed }
            let registration = DeviceRegistration(
                token: F.token, topic: F.topic, environment: .sandbox, unregisteredAt: row.given)
            let previous = row.previous.map { previous in
                (
                    device: F.device { $0.installed = previous.installed },
                    registration: DeviceRegistration(
                        token: F.token, topic: F.topic, environment: .sandbox,
                        unregisteredAt: previous.unregisteredAt)
                )
            }
            let result = registration.following(
                device, previous: previous, removedApp: row.removedApp, nowMilliseconds: Self.now)
            XCTAssertEqual(result.unregisteredAt, row.expected, row.name, line: row.line)
        }
    }
}
