import XCTest

@testable import LegacyBinary

final class BinaryFrameEncoderTests: XCTestCase {
    typealias F = BinaryFrames

    func testLayoutsAreTheDecodersAndPyAPNs() {
        XCTAssertEqual(
            BinaryFrameEncoder.encode(BinaryNotification(command: .simple, token: F.token, payload: F.payload)),
            F.simple())
        XCTAssertEqual(
            BinaryFrameEncoder.encode(
                BinaryNotification(command: .enhanced, identifier: 7, expiry: 9, token: F.token, payload: F.payload)),
            F.enhanced(identifier: 7, expiry: 9))
        XCTAssertEqual(
            BinaryFrameEncoder.encode(
                BinaryNotification(
                    command: .framed, identifier: 3, expiry: 0, priority: 10, token: F.token, payload: F.payload)),
            F.framed(identifier: 3))
        XCTAssertEqual(
            BinaryFrameEncoder.encode(BinaryNotification(command: .framed, token: F.token, payload: F.payload)),
            F.framed([F.item(1, F.token), F.item(2, F.payload)]), "items 3-5 only when given")
    }

    func testRoundTrip() {
        let notification = BinaryNotification(
            command: .framed, identifier: 1, expiry: 2, priority: 5, token: F.token, payload: F.payload)
        var decoder = BinaryFrameDecoder()
        var decoded = decoder.feed(BinaryFrameEncoder.encode(notification)).notifications
        decoded[0].byteCount = 0
        XCTAssertEqual(decoded, [notification])
    }
}
