import XCTest

@testable import LegacyBinary

final class BinaryHexTests: XCTestCase {
    func testRoundTrip() {
        XCTAssertEqual(BinaryHex.encode([0x00, 0xAB, 0xFF]), "00abff")
        XCTAssertEqual(BinaryHex.decode("00ABff"), [0x00, 0xAB, 0xFF])
        XCTAssertEqual(BinaryHex.decode(""), [])
        XCTAssertNil(BinaryHex.decode("abc"))
        XCTAssertNil(BinaryHex.decode("zz"))
        XCTAssertEqual(BinaryNotification(command: .simple, token: [1, 2], payload: []).tokenHex, "0102")
    }
}
