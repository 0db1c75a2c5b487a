import APNsCore
import Devices
import JSONInput
import XCTest

/// `DeviceLifecycle.update(_:at:)` (docs/device-model.md §1, §2.1).
final class DeviceLifecycleTests: XCTestCase {
    typealias F = LifecycleFixture

    func testUpdateRefusesAnotherIdentityAndChangesNothing() {
        var lifecycle = DeviceLifecycle(device: F.device { $0.connectivity = .offline })
        _ = lifecycle.receive(F.alert(1), at: F.t0)
        let cases: [(String, (inout VirtualDevice) -> Void)] = [
            ("token", { $0.token = String(repeating: "cd", count: 32) }),
            ("topic", { $0.topic = "com.example.other" }),
            ("environment", { $0.environment = .production }),
        ]
        for (path, change) in cases {
            var changed = lifecycle.device
            changed.connectivity = .online
            change(&changed)
            XCTAssertThrowsError(try lifecycle.update(changed, at: F.t0 + 10)) { error in
                XCTAssertEqual((error as? InputError)?.path, path)
            }
            XCTAssertEqual(lifecycle.device.connectivity, .offline, path)
            XCTAssertEqual(lifecycle.stored?.push.id, 1, path)
        }
    }

    func testUpdateAppliesSettingsThenConnectivity() throws {
        var lifecycle = DeviceLifecycle(device: F.device { $0.connectivity = .offline })
        _ = lifecycle.receive(F.alert(1), at: F.t0)
        var changed = lifecycle.device
        changed.connectivity = .online
        changed.settings.alert = false
        let events = try lifecycle.update(changed, at: F.t0 + 10).map(F.render)
        XCTAssertEqual(events, ["1 delivered-from-storage @10"])
        XCTAssertEqual(lifecycle.device.connectivity, .online)
        XCTAssertTrue(lifecycle.shown.isEmpty, "alerts off: delivered, not shown")
    }
}
