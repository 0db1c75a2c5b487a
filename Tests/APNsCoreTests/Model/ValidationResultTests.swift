import XCTest

@testable import APNsCore

/// `ValidationResult.sameBytes(exceptDeviceToken:)`: byte equality of every field but the device token.
final class ValidationResultTests: XCTestCase {
    private let base = ValidationResult(
        reason: nil, deviceToken: "aa", topic: "com.example.app", pushTypeSent: "alert", pushType: .alert,
        priority: 10, collapseID: "c", lints: ["one"])

    func testTheDeviceTokenAloneMayDiffer() {
        var other = base
        other.deviceToken = "bb"
        XCTAssertTrue(base.sameBytes(exceptDeviceToken: other))
        XCTAssertTrue(base.sameBytes(exceptDeviceToken: base))
    }

    func testEveryOtherFieldCounts() {
        let changes: [(String, (inout ValidationResult) -> Void)] = [
            ("reason", { $0.reason = .badTopic }), ("timestamp", { $0.timestamp = 5 }),
            ("push type", { $0.pushType = .background }), ("priority", { $0.priority = 5 }),
            ("expiration", { $0.expiration = 1 }), ("topic", { $0.topic = "com.example.other" }),
            ("push type sent", { $0.pushTypeSent = nil }), ("collapse id", { $0.collapseID = "d" }),
            ("apns-id", { $0.apnsID = "x" }), ("lints", { $0.lints = ["one", "two"] }),
            ("lint text", { $0.lints = ["One"] }), ("payload error", { $0.payloadError = "bad" }),
        ]
        for (name, change) in changes {
            var other = base
            change(&other)
            XCTAssertFalse(base.sameBytes(exceptDeviceToken: other), name)
            XCTAssertFalse(other.sameBytes(exceptDeviceToken: base), name)
        }
    }

    /// Canonically equivalent text is equal for `==` but not the same bytes.
    func testCanonicallyEquivalentTextIsNotTheSameBytes() {
        var precomposed = base, decomposed = base
        precomposed.topic = "com.caf\u{E9}"
        decomposed.topic = "com.cafe\u{301}"
        XCTAssertEqual(precomposed, decomposed)
        XCTAssertFalse(precomposed.sameBytes(exceptDeviceToken: decomposed))
    }
}

/// `ValidationResult.init(reusing:...)`: a spare verdict's text box is reused only when the spare
/// owns it alone; either way the verdict is the one the plain initializer makes, and a verdict
/// sharing the box keeps its own values.
final class ValidationResultReuseTests: XCTestCase {
    private func made(reusing spare: consuming ValidationResult?) -> ValidationResult {
        ValidationResult(
            reusing: spare, reason: .badTopic, timestamp: 7, deviceToken: "bb", topic: "com.example.other",
            pushTypeSent: nil, pushType: .background, priority: 5, expiration: 9, collapseID: nil,
            apnsID: "123E4567-E89B-12D3-A456-426614174000", lints: ["two"], payloadError: "bad")
    }

    private var expected: ValidationResult {
        ValidationResult(
            reason: .badTopic, timestamp: 7, deviceToken: "bb", topic: "com.example.other", pushTypeSent: nil,
            pushType: .background, priority: 5, expiration: 9, collapseID: nil,
            apnsID: "123E4567-E89B-12D3-A456-426614174000", lints: ["two"], payloadError: "bad")
    }

    private func spare() -> ValidationResult {
        ValidationResult(
            reason: nil, deviceToken: "aa", topic: "com.example.app", pushTypeSent: "alert", pushType: .alert,
            priority: 10, collapseID: "c", lints: ["one"])
    }

    func testASpareOwnedAloneGivesItsBox() {
        var owned: ValidationResult? = spare()
        let box = owned!.textsIdentity
        let result = made(reusing: owned.take())
        XCTAssertEqual(result.textsIdentity, box)
        XCTAssertEqual(result, expected)
        XCTAssertTrue(result.sameBytes(exceptDeviceToken: expected))
        XCTAssertEqual(result.deviceToken, "bb")
    }

    func testASharedSpareKeepsItsValues() {
        let kept = spare()
        let result = made(reusing: kept)
        XCTAssertNotEqual(result.textsIdentity, kept.textsIdentity)
        XCTAssertEqual(result, expected)
        XCTAssertEqual(kept, spare(), "the other owner's verdict is untouched")
        XCTAssertEqual(kept.deviceToken, "aa")
        XCTAssertEqual(made(reusing: nil), expected)
    }
}
