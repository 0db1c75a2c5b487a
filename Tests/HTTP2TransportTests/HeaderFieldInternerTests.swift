import XCTest

@testable import HTTP2Transport

/// `HeaderFieldInterner`: a field identical to the one at the same position of an earlier block
/// is reused; anything else is made from the bytes received.
final class HeaderFieldInternerTests: XCTestCase {
    private func field(_ interner: inout HeaderFieldInterner, _ position: Int, _ name: [UInt8], _ value: [UInt8])
        -> HeaderField
    {
        name.withUnsafeBufferPointer { n in
            value.withUnsafeBufferPointer { v in interner.field(at: position, name: n, value: v) }
        }
    }

    private func field(_ interner: inout HeaderFieldInterner, _ position: Int, _ name: String, _ value: String)
        -> HeaderField
    {
        field(&interner, position, Array(name.utf8), Array(value.utf8))
    }

    func testRepeatedBlockIsReused() {
        var interner = HeaderFieldInterner()
        let path = "/3/device/" + String(repeating: "ab", count: 32)
        for _ in 0..<3 {
            XCTAssertEqual(field(&interner, 0, ":path", path), HeaderField(name: ":path", value: path))
            XCTAssertEqual(
                field(&interner, 1, "apns-topic", "com.example.app"),
                HeaderField(name: "apns-topic", value: "com.example.app"))
        }
        XCTAssertEqual(interner.reused, 4, "the second and third blocks reuse both fields")
    }

    func testChangedValueOrNameAtAPositionIsMadeAnew() {
        var interner = HeaderFieldInterner()
        _ = field(&interner, 0, "apns-topic", "com.example.app")
        XCTAssertEqual(
            field(&interner, 0, "apns-topic", "com.example.xyz"),
            HeaderField(name: "apns-topic", value: "com.example.xyz"), "same length, other bytes")
        XCTAssertEqual(
            field(&interner, 0, "apns-topix", "com.example.xyz"),
            HeaderField(name: "apns-topix", value: "com.example.xyz"), "same value, other name")
        XCTAssertEqual(field(&interner, 0, "apns-topic", ""), HeaderField(name: "apns-topic", value: ""), "empty value")
        XCTAssertEqual(field(&interner, 0, "apns-topic", ""), HeaderField(name: "apns-topic", value: ""))
        XCTAssertEqual(interner.reused, 1, "only the repeated empty value")
    }

    /// A new value under the same name (a new `:path` every push) is remembered from the bytes
    /// received when it is ASCII, from its String otherwise, and the slot grows as needed: each
    /// value then repeats, and no earlier value matches any more.
    func testNewValuesUnderTheSameNameAreRememberedWhateverTheirLength() {
        var interner = HeaderFieldInterner()
        let values = [
            "/3/device/ab", "/3/device/" + String(repeating: "cd", count: 32), "/3/device/é",
            "/3/device/" + String(repeating: "9f", count: 80), "/", "/3/device/é",
        ]
        var reused = 0
        for (index, value) in values.enumerated() {
            XCTAssertEqual(field(&interner, 2, ":path", value), HeaderField(name: ":path", value: value))
            XCTAssertEqual(interner.reused, reused, "value \(index + 1) is new")
            XCTAssertEqual(field(&interner, 2, ":path", value), HeaderField(name: ":path", value: value))
            reused += 1
            XCTAssertEqual(interner.reused, reused, "value \(index + 1) repeats")
            if index > 0 {
                _ = field(&interner, 2, ":path", values[index - 1])
                XCTAssertEqual(interner.reused, reused, "the value before it is no longer remembered")
                _ = field(&interner, 2, ":path", value)
            }
        }
        XCTAssertEqual(field(&interner, 2, ":pat", "/"), HeaderField(name: ":pat", value: "/"), "another name")
        XCTAssertEqual(field(&interner, 2, ":pat", "/"), HeaderField(name: ":pat", value: "/"))
    }

    func testFieldsAtOtherPositionsAreNotMixedUp() {
        var interner = HeaderFieldInterner()
        _ = field(&interner, 0, "a", "1")
        _ = field(&interner, 1, "b", "2")
        XCTAssertEqual(field(&interner, 0, "b", "2"), HeaderField(name: "b", value: "2"))
        XCTAssertEqual(field(&interner, 1, "a", "1"), HeaderField(name: "a", value: "1"))
        XCTAssertEqual(interner.reused, 0)
    }

    func testInvalidUTF8IsRepairedAndNeverMatchesItsRawBytes() {
        var interner = HeaderFieldInterner()
        let invalid: [UInt8] = [0x61, 0xFF, 0xFE]
        let repaired = "a\u{FFFD}\u{FFFD}"
        XCTAssertEqual(field(&interner, 0, Array("x-a".utf8), invalid).value, repaired)
        XCTAssertEqual(field(&interner, 0, Array("x-a".utf8), invalid).value, repaired)
        XCTAssertEqual(interner.reused, 0, "the stored string's bytes are the repaired ones")
        XCTAssertEqual(
            field(&interner, 0, "x-a", repaired).value, repaired, "the repaired text itself, sent as valid UTF-8")
        XCTAssertEqual(interner.reused, 1)
    }

    func testSkippedPositionsDoNotStopLaterOnesBeingRemembered() {
        // The transport makes no Strings of `:scheme`, so its position is skipped.
        var interner = HeaderFieldInterner()
        for _ in 0..<2 {
            XCTAssertEqual(field(&interner, 0, ":method", "POST"), HeaderField(name: ":method", value: "POST"))
            XCTAssertEqual(
                field(&interner, 2, "apns-topic", "com.example.app"),
                HeaderField(name: "apns-topic", value: "com.example.app"))
        }
        XCTAssertEqual(interner.reused, 2, "both fields of the second block")
        XCTAssertEqual(
            field(&interner, 1, "", ""), HeaderField(name: "", value: ""),
            "a skipped position holds only the empty field")
        XCTAssertEqual(field(&interner, 1, "x-a", ""), HeaderField(name: "x-a", value: ""))
    }

    func testPositionsPastTheLimitAreAlwaysMade() {
        var interner = HeaderFieldInterner()
        let last = HeaderFieldInterner.positions
        for position in 0...last { _ = field(&interner, position, "x-\(position)", "v") }
        for position in 0...last { _ = field(&interner, position, "x-\(position)", "v") }
        XCTAssertEqual(interner.reused, last, "every position under the limit, none past it")
        interner.removeAll()
        _ = field(&interner, 0, "x-0", "v")
        XCTAssertEqual(interner.reused, last, "nothing remembered after removeAll")
    }
}
