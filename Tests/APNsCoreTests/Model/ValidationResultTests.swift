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
