import XCTest

@testable import LegacyBinary

final class BinaryErrorPacketTests: XCTestCase {
    func testSixBytesBigEndian() {
        XCTAssertEqual(
            BinaryErrorPacket(status: .invalidToken, identifier: 0x0102_0304).bytes, [8, 8, 1, 2, 3, 4])
        XCTAssertEqual(BinaryErrorPacket(status: .shutdown, identifier: 0).bytes, [8, 10, 0, 0, 0, 0])
        XCTAssertEqual(
            BinaryErrorPacket(status: .protocolError, identifier: 0xFFFF_FFFF).bytes,
            [8, 128, 0xFF, 0xFF, 0xFF, 0xFF])
    }

    func testReadBack() {
        XCTAssertEqual(
            BinaryErrorPacket(bytes: [8, 7, 0, 0, 1, 0]),
            BinaryErrorPacket(status: .invalidPayloadSize, identifier: 256))
        XCTAssertNil(BinaryErrorPacket(bytes: [9, 7, 0, 0, 1, 0]))
        XCTAssertNil(BinaryErrorPacket(bytes: [8, 9, 0, 0, 1, 0]), "9 is not in Apple's table")
        XCTAssertNil(BinaryErrorPacket(bytes: [8, 7, 0, 0, 1]))
    }
}
