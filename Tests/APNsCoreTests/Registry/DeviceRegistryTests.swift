import XCTest

@testable import APNsCore

final class DeviceRegistryTests: XCTestCase {
    func testInitLowercasesAndLookupFindsEitherCase() {
        let registry = DeviceRegistry(devices: [
            DeviceRegistration(token: "AABB", topic: "com.a", environment: .sandbox)
        ])
        XCTAssertEqual(registry.lookup("aabb")?.topic, "com.a")
        XCTAssertEqual(registry.lookup("AaBb")?.token, "aabb")
        XCTAssertNil(registry.lookup("ccdd"))
    }

    func testPutReportsCreateThenReplace() {
        let registry = DeviceRegistry()
        XCTAssertTrue(registry.put(DeviceRegistration(token: "01ff", environment: .sandbox)))
        XCTAssertFalse(registry.put(DeviceRegistration(token: "01FF", environment: .production, expired: true)))
        XCTAssertEqual(registry.count, 1)
        XCTAssertEqual(registry.lookup("01ff")?.environment, .production)
        XCTAssertEqual(registry.lookup("01ff")?.expired, true)
    }

    func testRemoveAndClearAndAllSorted() {
        let registry = DeviceRegistry(devices: [
            DeviceRegistration(token: "cc", environment: .sandbox),
            DeviceRegistration(token: "aa", environment: .sandbox),
            DeviceRegistration(token: "bb", environment: .production),
        ])
        XCTAssertEqual(registry.all().map(\.token), ["aa", "bb", "cc"])
        XCTAssertTrue(registry.remove(token: "BB"))
        XCTAssertFalse(registry.remove(token: "bb"))
        XCTAssertNil(registry.lookup("bb"))
        XCTAssertEqual(registry.clear(), 2)
        XCTAssertEqual(registry.all(), [])
        XCTAssertNil(registry.lookup("aa"))
    }
}
