import XCTest

@testable import Devices

/// What a registered device costs (docs/device-model.md §7): the stored and the budget-held
/// notification are a pointer each (`DeviceLifecycle.PendingSlot`), not a `Pending` inline, and
/// they read back what was put in them.
final class DeviceLifecycleFootprintTests: XCTestCase {
    func testTheHeldNotificationsArePointers() {
        XCTAssertEqual(MemoryLayout<DeviceLifecycle.PendingSlot>.size, MemoryLayout<UnsafeRawPointer>.size)
        XCTAssertGreaterThan(MemoryLayout<DeviceLifecycle.Pending?>.size, 100, "what each slot saves")
        XCTAssertLessThan(
            MemoryLayout<DeviceLifecycle>.size, 2 * MemoryLayout<DeviceLifecycle.Pending?>.size,
            "the two held notifications inline would take more than the whole lifecycle")
    }

    func testASlotReadsBackItsPending() {
        let pending = DeviceLifecycle.Pending(
            push: LifecycleFixture.alert(4), since: 10, deadline: 20, cause: .deviceOffline)
        XCTAssertNil(DeviceLifecycle.PendingSlot(nil).pending)
        XCTAssertEqual(DeviceLifecycle.PendingSlot(pending).pending, pending)
    }
}
