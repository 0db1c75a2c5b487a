import XCTest

@testable import LegacyBinary

final class BinaryFrameDecoderTests: XCTestCase {
    typealias F = BinaryFrames

    /// Feeds `bytes` in pieces cut at `cuts` and gathers the results.
    private func feed(_ bytes: [UInt8], cuts: [Int] = [], limits: BinaryLimits = BinaryLimits()) -> BinaryFeedResult {
        var decoder = BinaryFrameDecoder(limits: limits)
        var total = BinaryFeedResult()
        var from = 0
        for cut in cuts + [bytes.count] {
            let step = decoder.feed(bytes[from..<cut])
            total.notifications += step.notifications
            total.discarded += step.discarded
            if let rejection = step.rejection {
                XCTAssertNil(total.rejection, "a second rejection")
                total.rejection = rejection
            }
            from = cut
        }
        return total
    }

    func testEachCommandDecodesItsFields() {
        let simple = feed(F.simple())
        XCTAssertEqual(
            simple.notifications,
            [BinaryNotification(command: .simple, token: F.token, payload: F.payload, byteCount: 1 + 2 + 32 + 2 + 22)])
        let enhanced = feed(F.enhanced(identifier: 0xDEAD_BEEF, expiry: 1_700_000_000))
        XCTAssertEqual(enhanced.notifications.first?.identifier, 0xDEAD_BEEF)
        XCTAssertEqual(enhanced.notifications.first?.expiry, 1_700_000_000)
        XCTAssertEqual(enhanced.notifications.first?.effectivePriority, 10)
        let framed = feed(F.framed(identifier: 7, expiry: 9, priority: 5))
        XCTAssertEqual(
            framed.notifications,
            [
                BinaryNotification(
                    command: .framed, identifier: 7, expiry: 9, priority: 5, token: F.token, payload: F.payload,
                    byteCount: 5 + 35 + 25 + 7 + 7 + 4)
            ])
        XCTAssertNil(simple.rejection ?? enhanced.rejection ?? framed.rejection)
    }

    func testFramedItemsMayComeInAnyOrderAndThreeToFiveAreOptional() {
        let result = feed(F.framed([F.item(2, F.payload), F.item(1, F.token)]))
        XCTAssertEqual(result.notifications.count, 1)
        XCTAssertNil(result.notifications[0].identifier)
        XCTAssertNil(result.notifications[0].expiry)
        XCTAssertNil(result.notifications[0].priority)
        XCTAssertEqual(result.notifications[0].effectivePriority, 10)
    }

    /// Every split of a stream of three notifications (one of each command) decodes the same.
    func testSplitsAtEveryOffsetGiveTheSameNotifications() {
        let stream = F.simple() + F.enhanced(identifier: 2) + F.framed(identifier: 3)
        let whole = feed(stream)
        XCTAssertEqual(whole.notifications.count, 3)
        for cut in 0...stream.count {
            XCTAssertEqual(feed(stream, cuts: [cut]), whole, "cut at \(cut)")
        }
        XCTAssertEqual(feed(stream, cuts: Array(1..<stream.count)), whole, "byte by byte")
    }

    func testStatusTable() {
        let long = [UInt8](repeating: 1, count: 33)
        let big = [UInt8](repeating: 0x20, count: 257)
        let cases: [(String, [UInt8], BinaryStatus, UInt32)] = [
            ("enhanced zero-length token", F.enhanced(identifier: 4, token: []), .missingDeviceToken, 4),
            ("framed without item 1", F.framed([F.item(2, F.payload), F.item(3, F.u32(5))]), .missingDeviceToken, 5),
            ("enhanced 33-byte token", F.enhanced(identifier: 6, token: long), .invalidTokenSize, 6),
            ("framed 31-byte token", F.framed(identifier: 7, token: Array(F.token.prefix(31))), .invalidTokenSize, 7),
            ("enhanced empty payload", F.enhanced(identifier: 8, payload: []), .missingPayload, 8),
            ("framed without item 2", F.framed([F.item(1, F.token), F.item(3, F.u32(9))]), .missingPayload, 9),
            ("enhanced 257-byte payload", F.enhanced(identifier: 10, payload: big), .invalidPayloadSize, 10),
            (
                "framed 2049-byte payload", F.framed(identifier: 11, payload: [UInt8](repeating: 0x20, count: 2049)),
                .invalidPayloadSize, 11
            ),
            (
                "framed duplicate token item",
                F.framed([F.item(1, F.token), F.item(1, F.token), F.item(2, F.payload), F.item(3, F.u32(12))]),
                .protocolError, 12
            ),
            (
                "framed unknown item 6", F.framed([F.item(1, F.token), F.item(2, F.payload), F.item(6, [1])]),
                .protocolError, 0
            ),
            ("framed priority 7", F.framed(identifier: 13, priority: 7), .protocolError, 13),
            (
                "framed 2-byte identifier", F.framed([F.item(1, F.token), F.item(2, F.payload), F.item(3, [0, 1])]),
                .protocolError, 0
            ),
            (
                "framed 3-byte expiry",
                F.framed([F.item(1, F.token), F.item(2, F.payload), F.item(3, F.u32(14)), F.item(4, [0, 0, 1])]),
                .protocolError, 14
            ),
            ("framed item past the frame", [2] + F.u32(4) + [1, 0, 32, 0], .protocolError, 0),
            ("framed truncated item header", [2] + F.u32(2) + [1, 0], .protocolError, 0),
            ("frame length over the limit (4 GB)", [2, 0xFF, 0xFF, 0xFF, 0xFF], .protocolError, 0),
            ("unknown command 3", [3, 0, 0], .protocolError, 0),
        ]
        for (name, bytes, status, identifier) in cases {
            let result = feed(bytes)
            XCTAssertEqual(result.notifications, [], name)
            XCTAssertEqual(result.rejection?.status, status, name)
            XCTAssertEqual(result.rejection?.identifier, identifier, name)
            XCTAssertEqual(
                result.rejection?.errorPacket, BinaryErrorPacket(status: status, identifier: identifier), name)
        }
    }

    func testCommandZeroIsSeveredWithoutAPacket() {
        let result = feed(F.simple(token: Array(F.token.prefix(20))))
        XCTAssertEqual(result.rejection?.status, .invalidTokenSize)
        XCTAssertEqual(result.rejection?.commandByte, 0)
        XCTAssertNil(result.rejection?.errorPacket)
        XCTAssertEqual(result.rejection?.notification?.token.count, 20)
    }

    func testLimitsAreConfigurable() {
        let hundred = [UInt8](repeating: 9, count: 100)
        let limits = BinaryLimits(tokenLength: 100, simplePayloadLimit: 300, framedPayloadLimit: 30)
        XCTAssertEqual(feed(F.enhanced(identifier: 1, token: hundred), limits: limits).notifications.count, 1)
        XCTAssertEqual(feed(F.enhanced(identifier: 1), limits: limits).rejection?.status, .invalidTokenSize)
        let payload = [UInt8](repeating: 0x20, count: 280)
        XCTAssertEqual(
            feed(F.enhanced(identifier: 1, token: hundred, payload: payload), limits: limits).notifications.count, 1)
        XCTAssertEqual(
            feed(F.framed(identifier: 2, token: hundred, payload: Array(payload.prefix(31))), limits: limits)
                .rejection?.status, .invalidPayloadSize)
        let small = BinaryLimits(frameLengthLimit: 20)
        XCTAssertEqual(feed(F.framed(identifier: 3), limits: small).rejection?.identifier, 0)
        XCTAssertNil(BinaryLimits().problem)
        XCTAssertNotNil(BinaryLimits(tokenLength: 101).problem)
        XCTAssertNotNil(BinaryLimits(tokenLength: 0).problem)
        XCTAssertNotNil(BinaryLimits(framedPayloadLimit: 65_536).problem)
        XCTAssertNotNil(BinaryLimits(frameLengthLimit: 3).problem)
    }

    /// Five notifications in one write, the third bad: two to judge, the third refused, four and
    /// five discarded, whatever the split.
    func testEverythingAfterARejectionIsDiscarded() {
        let stream =
            F.enhanced(identifier: 1) + F.enhanced(identifier: 2) + F.enhanced(identifier: 3, token: [])
            + F.framed(identifier: 4) + F.enhanced(identifier: 5)
        for cut in [0, 10, 100, stream.count - 3] {
            let result = feed(stream, cuts: [cut])
            XCTAssertEqual(result.notifications.map(\.identifier), [1, 2], "cut \(cut)")
            XCTAssertEqual(result.rejection?.errorPacket, BinaryErrorPacket(status: .missingDeviceToken, identifier: 3))
            XCTAssertEqual(result.discarded.map(\.identifier), [4, 5], "cut \(cut)")
        }
    }

    func testStopDiscardsWhatFollowsAndLostFramingIsCountedNotHeld() {
        var decoder = BinaryFrameDecoder()
        XCTAssertEqual(decoder.feed(F.enhanced(identifier: 1)).notifications.count, 1)
        decoder.stop()
        XCTAssertFalse(decoder.isServing)
        let later = decoder.feed(F.enhanced(identifier: 2) + [9, 9, 9])
        XCTAssertEqual(later.notifications, [])
        XCTAssertNil(later.rejection)
        XCTAssertEqual(later.discarded.map(\.identifier), [2])
        XCTAssertEqual(decoder.unparsedByteCount, 3)
        XCTAssertEqual(decoder.feed([UInt8](repeating: 0, count: 1000)).discarded, [])
        XCTAssertEqual(decoder.unparsedByteCount, 1003)
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }

    /// A length field claiming 4 GB is refused from its header: nothing is buffered for it.
    func testHugeFrameIsRefusedAtItsHeader() {
        var decoder = BinaryFrameDecoder()
        let result = decoder.feed([2, 0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertEqual(result.rejection?.status, .protocolError)
        _ = decoder.feed([UInt8](repeating: 1, count: 100_000))
        XCTAssertEqual(decoder.bufferedByteCount, 0)
        XCTAssertEqual(decoder.unparsedByteCount, 5 + 100_000, "its header and all after it")
    }

    func testPartialNotificationIsHeldUntilComplete() {
        var decoder = BinaryFrameDecoder()
        let bytes = F.framed(identifier: 1)
        XCTAssertEqual(decoder.feed(bytes.prefix(10)), BinaryFeedResult())
        XCTAssertEqual(decoder.bufferedByteCount, 10)
        XCTAssertEqual(decoder.feed(bytes.dropFirst(10)).notifications.count, 1)
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }
}
