import APNsCore
import XCTest

/// The token key of the registry and the device book: equal tokens are equal keys with equal
/// hashes; tokens alike at both ends (the bytes the hash reads) are still different keys.
final class DeviceTokenKeyTests: XCTestCase {
    func testEqualityIsTheTokensAndHashesAgreeWithIt() {
        let ends = String(repeating: "ab", count: 8)
        let rows: [(String, String, Bool)] = [
            (ends + String(repeating: "01", count: 16) + ends, ends + String(repeating: "01", count: 16) + ends, true),
            (ends + String(repeating: "01", count: 16) + ends, ends + String(repeating: "02", count: 16) + ends, false),
            ("0a0b", "0a0b", true),
            ("0a0b", "0a0c", false),
            (String(repeating: "ab", count: 32), String(repeating: "ab", count: 33), false),
        ]
        for (left, right, equal) in rows {
            XCTAssertEqual(DeviceTokenKey(left) == DeviceTokenKey(right), equal, "\(left) vs \(right)")
            if equal { XCTAssertEqual(DeviceTokenKey(left).hashValue, DeviceTokenKey(right).hashValue) }
        }
        // A token built another way (a substring made a String) hashes as the literal does.
        let long = "xx" + String(repeating: "cd", count: 32)
        let built = String(long.dropFirst(2))
        XCTAssertEqual(DeviceTokenKey(built).hashValue, DeviceTokenKey(String(repeating: "cd", count: 32)).hashValue)
    }

    func testARegistryTellsTokensAlikeAtTheEndsApart() {
        let ends = String(repeating: "ef", count: 8)
        let first = ends + String(repeating: "01", count: 16) + ends
        let second = ends + String(repeating: "02", count: 16) + ends
        let registry = DeviceRegistry(devices: [DeviceRegistration(token: first, environment: .sandbox)])
        XCTAssertNotNil(registry.lookup(first))
        XCTAssertNil(registry.lookup(second))
        XCTAssertNotNil(registry.lookup(first.uppercased()))
    }
}
