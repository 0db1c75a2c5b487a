import XCTest

@testable import LegacyBinary

final class BinaryStatusTests: XCTestCase {
    /// Apple's Table A-4, code for code.
    func testAppleTable() {
        XCTAssertEqual(BinaryStatus.allCases.map(\.rawValue), [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 128, 255])
        XCTAssertEqual(BinaryStatus.invalidToken.description, "Invalid token")
        XCTAssertEqual(BinaryStatus.protocolError.description, "Protocol error")
        XCTAssertEqual(BinaryStatus.unknown.description, "None (unknown)")
        XCTAssertNil(BinaryStatus(rawValue: 9))
    }

    func testOnlyCommandZeroSevers() {
        XCTAssertEqual(BinaryCommand.allCases.map(\.answersWithErrorPacket), [false, true, true])
    }
}
