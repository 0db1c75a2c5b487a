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

    /// `page(after:limit:)` gives the registrations in token order, both ways it picks them (one
    /// pass for a page much smaller than the table, a sort otherwise), the same as `all()` sliced.
    func testPagesAreSlicesOfTheSortedRegistrations() {
        var generator = SystemRandomNumberGenerator()
        let tokens = (0..<500).map { _ in
            String(format: "%016llx", UInt64.random(in: 0...UInt64.max, using: &generator))
        }
        let registry = DeviceRegistry(devices: tokens.map { DeviceRegistration(token: $0, environment: .sandbox) })
        let sorted = registry.all().map(\.token)
        for limit in [0, 1, 7, 62, 63, 100, 499, 500, 501, Int.max] {
            for after in [nil, sorted[0], sorted[250], sorted[498], sorted[499], "0", "g"] {
                let expected = sorted.filter { after == nil || $0 > after! }
                let page = registry.page(after: after, limit: limit)
                XCTAssertEqual(
                    page.registrations.map(\.token), Array(expected.prefix(limit)),
                    "limit \(limit) after \(after ?? "-")")
                XCTAssertEqual(page.more, expected.count > limit, "limit \(limit) after \(after ?? "-")")
                XCTAssertEqual(page.total, 500)
            }
        }
    }
}
