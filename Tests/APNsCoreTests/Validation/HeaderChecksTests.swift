import XCTest

@testable import APNsCore
@testable import TestFixtures

/// `HeaderChecks`: checks 2, 3, 5 and 6 of the validator's order, made once for the header fields
/// and the default topic, and when two field lists count as the same input for them (the same
/// names, the same `apns-` values and default topic: other values are never read).
final class HeaderChecksTests: XCTestCase {
    private func fields(_ pairs: [(String, String)]) -> [HeaderField] {
        pairs.map { HeaderField(name: $0.0, value: $0.1) }
    }

    func testTheChecksAndWhatTheyParse() {
        let ok = HeaderChecks(
            fields([
                ("apns-topic", "com.example.app"), ("apns-push-type", "alert"), ("apns-priority", "5"),
                ("apns-expiration", "0"), ("apns-collapse-id", "c"),
                ("apns-id", "123E4567-E89B-12D3-A456-426614174000"),
            ]), defaultTopic: nil)
        XCTAssertNil(ok.reasonBeforeToken)
        XCTAssertNil(ok.reasonAfterToken)
        XCTAssertEqual(ok.topic, "com.example.app")
        XCTAssertEqual(ok.pushTypeSent, "alert")
        XCTAssertEqual(ok.sentType, .alert)
        XCTAssertEqual(ok.priority, 5)
        XCTAssertEqual(ok.expiration, 0)
        XCTAssertEqual(ok.collapseID, "c")
        XCTAssertEqual(ok.apnsID, "123E4567-E89B-12D3-A456-426614174000")

        let absent = HeaderChecks([], defaultTopic: "com.example.default")
        XCTAssertEqual(absent.topic, "com.example.default", "the default topic for a missing apns-topic")
        XCTAssertEqual(absent.priority, 10)
        XCTAssertNil(absent.reasonAfterToken)
        XCTAssertEqual(HeaderChecks([], defaultTopic: nil).reasonAfterToken, .missingTopic)

        // Before the token: duplicates, then the header values in Apple's order.
        let early = HeaderChecks(
            fields([("apns-priority", "7"), ("apns-id", "nope"), ("x-a", "1"), ("x-a", "2")]), defaultTopic: "t")
        XCTAssertEqual(early.reasonBeforeToken, .duplicateHeaders)
        XCTAssertEqual(
            HeaderChecks(fields([("apns-priority", "7"), ("apns-id", "nope")]), defaultTopic: "t").reasonBeforeToken,
            .badMessageID)
        // After it: the topic, then the push type against the topic's suffix.
        XCTAssertEqual(HeaderChecks(fields([("apns-topic", "a..b")]), defaultTopic: nil).reasonAfterToken, .badTopic)
        XCTAssertEqual(
            HeaderChecks(
                fields([("apns-topic", "com.example.app.voip"), ("apns-push-type", "alert")]), defaultTopic: nil
            )
            .reasonAfterToken, .invalidPushType)
    }

    func testSameInput() {
        let base = fields([("apns-topic", "com.example.app"), ("apns-push-type", "alert"), ("content-length", "33")])
        func same(_ other: [HeaderField], _ topic: String? = nil, _ previousTopic: String? = nil) -> Bool {
            HeaderChecks.sameInput(other, defaultTopic: topic, as: base, defaultTopic: previousTopic)
        }
        XCTAssertTrue(same(base), "the very list")
        XCTAssertTrue(
            same(fields([("apns-topic", "com.example.app"), ("apns-push-type", "alert"), ("content-length", "33")])))
        XCTAssertTrue(
            same(fields([("apns-topic", "com.example.app"), ("apns-push-type", "alert"), ("content-length", "39")])),
            "a value no check reads")
        XCTAssertFalse(
            same(fields([("apns-topic", "com.example.other"), ("apns-push-type", "alert"), ("content-length", "33")])),
            "an apns- value")
        XCTAssertFalse(
            same(fields([("apns-topic", "com.example.app"), ("apns-push-type", "alert"), ("content-lengths", "33")])),
            "a name")
        XCTAssertFalse(same(fields([("apns-topic", "com.example.app"), ("apns-push-type", "alert")])), "a field fewer")
        XCTAssertFalse(
            same(fields([("apns-push-type", "alert"), ("apns-topic", "com.example.app"), ("content-length", "33")])),
            "another order")
        XCTAssertFalse(same(base, "com.example.app"), "another default topic")
        XCTAssertTrue(same(base, "com.example.app", "com.example.app"))
        // Bytes, not canonical equivalence: é precomposed and decomposed are different inputs.
        let precomposed = fields([("apns-topic", "caf\u{E9}")])
        let decomposed = fields([("apns-topic", "cafe\u{301}")])
        XCTAssertFalse(HeaderChecks.sameInput(decomposed, defaultTopic: nil, as: precomposed, defaultTopic: nil))
    }
}
