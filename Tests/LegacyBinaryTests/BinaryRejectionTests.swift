import XCTest

@testable import LegacyBinary

final class BinaryRejectionTests: XCTestCase {
    func testVerdictOfAParsedNotification() {
        let framed = BinaryNotification(command: .framed, identifier: 42, token: [1], payload: [2])
        let rejection = BinaryRejection(framed, status: .invalidToken)
        XCTAssertEqual(rejection.errorPacket?.bytes, [8, 8, 0, 0, 0, 42])
        let noIdentifier = BinaryNotification(command: .framed, token: [1], payload: [2])
        XCTAssertEqual(BinaryRejection(noIdentifier, status: .invalidToken).identifier, 0)
        let simple = BinaryNotification(command: .simple, token: [1], payload: [2])
        XCTAssertNil(BinaryRejection(simple, status: .invalidToken).errorPacket)
    }
}
