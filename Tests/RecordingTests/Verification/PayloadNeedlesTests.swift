import JSONInput
import Recording
import XCTest

/// The byte check before decoding a payload for a verification (docs/testing.md): plain keys
/// and strings must be spelled in the bytes; escapes, numbers and non-ASCII never refuse.
final class PayloadNeedlesTests: XCTestCase {
    typealias Condition = DeliveryMatch.PayloadCondition

    private func mayMatch(_ conditions: [Condition], _ text: String) -> Bool {
        Array(text.utf8).withUnsafeBufferPointer { PayloadNeedles(conditions).mayMatch($0) }
    }

    func testKeysAndPlainStringsMustBeSpelled() {
        let never = [Condition(path: "aps.alert", value: .string("never"))]
        XCTAssertEqual(
            PayloadNeedles(never).needles, [Array(#""aps""#.utf8), Array(#""alert""#.utf8), Array(#""never""#.utf8)])
        XCTAssertFalse(mayMatch(never, #"{"aps":{"alert":"hi"}}"#))
        XCTAssertTrue(mayMatch(never, #"{"aps":{"alert":"never"}}"#))
        XCTAssertFalse(mayMatch([Condition(path: "aps.badge", value: .bool(true))], #"{"aps":{"badge":false}}"#))
        XCTAssertFalse(mayMatch([Condition(path: "x", value: .null)], #"{"x":1}"#))
    }

    func testEscapesNumbersIndexesAndNonASCIINeverRefuse() {
        // A backslash may spell anything: decode.
        XCTAssertTrue(mayMatch([Condition(path: "a", value: .string("never"))], #"{"a":"\u006Cever"}"#))
        // 3 equals 3.0 and 3e0: no needle for numbers; array indexes are not keys.
        XCTAssertEqual(PayloadNeedles([Condition(path: "items.0", value: .int(3))]).needles, [Array(#""items""#.utf8)])
        // Swift compares by canonical equivalence (é = e + U+0301): no needle.
        XCTAssertEqual(PayloadNeedles([Condition(path: "caf\u{E9}", value: .string("\u{E9}"))]).needles, [])
        XCTAssertTrue(mayMatch([Condition(path: "a", value: .string("say \"hi\""))], #"{"a":1}"#))
        XCTAssertTrue(mayMatch([], ""))
    }
}
