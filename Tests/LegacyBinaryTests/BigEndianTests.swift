import XCTest

@testable import LegacyBinary

final class BigEndianTests: XCTestCase {
    func testReadAndWrite() {
        var bytes: [UInt8] = []
        BigEndian.append(UInt16(0x0102), to: &bytes)
        BigEndian.append(UInt32(0x0304_0506), to: &bytes)
        XCTAssertEqual(bytes, [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(BigEndian.uint16(bytes, at: 0), 0x0102)
        XCTAssertEqual(BigEndian.uint32(bytes, at: 2), 0x0304_0506)
    }
}
