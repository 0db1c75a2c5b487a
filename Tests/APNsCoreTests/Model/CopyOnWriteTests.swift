import XCTest

@testable import APNsCore

/// `ValidationResult` and `CredentialIdentity` keep their text in a shared copy-on-write box: copies
/// share it, a write through one copy never shows in another, and equality is by value.
final class CopyOnWriteTests: XCTestCase {
    private static let verdict = ValidationResult(
        reason: .badDeviceToken, timestamp: 5, deviceToken: "ab", topic: "com.example.app",
        pushTypeSent: "alert", pushType: .alert, priority: 10, expiration: 7,
        collapseID: "c", apnsID: "id", lints: ["one"], payloadError: "bad")

    func testAVerdictCopyWrittenThroughLeavesTheOriginal() {
        let original = Self.verdict
        // Each text field, written on its own copy.
        let writes: [(String, (inout ValidationResult) -> Void)] = [
            ("deviceToken", { $0.deviceToken = "cd" }), ("topic", { $0.topic = nil }),
            ("pushTypeSent", { $0.pushTypeSent = "background" }), ("collapseID", { $0.collapseID = "d" }),
            ("apnsID", { $0.apnsID = nil }), ("lints", { $0.lints.append("two") }),
            ("payloadError", { $0.payloadError = nil }),
        ]
        for (name, write) in writes {
            var copy = original
            write(&copy)
            XCTAssertNotEqual(copy, original, name)
            XCTAssertEqual(original, Self.verdict, "\(name): the original is unchanged")
            XCTAssertEqual(original.deviceToken, "ab")
            XCTAssertEqual(original.lints, ["one"])
        }
        var appended = original
        appended.lints.append("two")
        appended.lints.append("three")
        XCTAssertEqual(appended.lints, ["one", "two", "three"])
        XCTAssertEqual(original.lints, ["one"])
    }

    func testVerdictEqualityIsByValue() {
        var rebuilt = ValidationResult(
            reason: .badDeviceToken, timestamp: 5, pushType: .alert, priority: 10, expiration: 7)
        XCTAssertNotEqual(rebuilt, Self.verdict)
        rebuilt.deviceToken = "ab"
        rebuilt.topic = "com.example.app"
        rebuilt.pushTypeSent = "alert"
        rebuilt.collapseID = "c"
        rebuilt.apnsID = "id"
        rebuilt.lints = ["one"]
        rebuilt.payloadError = "bad"
        XCTAssertEqual(rebuilt, Self.verdict, "separately built, equal fields")
        var other = rebuilt
        other.reason = nil
        XCTAssertNotEqual(other, rebuilt, "an inline field differs")
        XCTAssertEqual(ValidationResult(), ValidationResult())
    }

    func testAnIdentityCopyWrittenThroughLeavesTheOriginal() {
        let original = CredentialIdentity(
            kind: "token", keyID: "K", teamID: "T", issuedAt: 1, subject: nil,
            topics: ["a"], verdict: "verified")
        var copy = original
        XCTAssertTrue(copy.isSameInstance(as: original))
        copy.topics?.append("b")
        XCTAssertFalse(copy.isSameInstance(as: original))
        XCTAssertEqual(original.topics, ["a"])
        XCTAssertEqual(copy.topics, ["a", "b"])
        var renamed = original
        renamed.verdict = "rejected: bad signature"
        XCTAssertEqual(original.verdict, "verified")
        XCTAssertNotEqual(renamed, original)
        XCTAssertEqual(
            CredentialIdentity(kind: "token", keyID: "K", teamID: "T", issuedAt: 1, topics: ["a"], verdict: "verified"),
            original, "separately built, equal fields")
    }
}
