import Foundation
import XCTest

@testable import APNsCore

/// `ReasonJSON` spells APNs's `{"reason":...}` and escapes other text as JSONSerialization does.
final class ReasonJSONTests: XCTestCase {
    func testReasonsAreSpelledAsAPNsSendsThem() {
        XCTAssertEqual(ReasonJSON.bytes(.shutdown), Array(#"{"reason":"Shutdown"}"#.utf8))
        XCTAssertEqual(
            ReasonJSON.bytes(.badCertificateEnvironment), Array(#"{"reason":"BadCertificateEnvironment"}"#.utf8))
        XCTAssertEqual(ReasonJSON.bytes(""), Array(#"{"reason":""}"#.utf8))
    }

    /// The plain fast path and JSONSerialization agree; text that needs escaping is escaped, `/` is not.
    func testTextIsEscapedAsJSONSerializationEscapesIt() throws {
        let texts = [
            "Shutdown", "Maximum active streams violated", "a.b-c_d 9", #"quote " inside"#, #"back\slash"#,
            "line\nbreak\ttab\u{1}", "path/with/slashes", "é ü 日本", "emoji 🙂", "del \u{7f}",
        ]
        for text in texts {
            let expected = try JSONSerialization.data(
                withJSONObject: ["reason": text], options: [.withoutEscapingSlashes])
            XCTAssertEqual(ReasonJSON.bytes(text), Array(expected), text)
            let decoded =
                try JSONSerialization.jsonObject(with: Data(ReasonJSON.bytes(text))) as? [String: String]
            XCTAssertEqual(decoded, ["reason": text])
        }
        XCTAssertEqual(ReasonJSON.bytes("a/b"), Array(#"{"reason":"a/b"}"#.utf8))
    }

    /// Error bodies of 410 answers carry the timestamp after the reason, escaped or not.
    func testTimestampFollowsTheReason() throws {
        XCTAssertEqual(
            ReasonJSON.bytes(.unregistered, timestamp: 1_700_000_000_123),
            Array(#"{"reason":"Unregistered","timestamp":1700000000123}"#.utf8))
        XCTAssertEqual(
            ReasonJSON.bytes("Unregistered", timestamp: 5), Array(#"{"reason":"Unregistered","timestamp":5}"#.utf8))
        XCTAssertEqual(ReasonJSON.bytes(#"a"b"#, timestamp: 5), Array(#"{"reason":"a\"b","timestamp":5}"#.utf8))
    }

    /// The spelled path for `Reason` is safe because every reason is plain.
    func testEveryReasonIsPlain() {
        for reason in Reason.allCases {
            XCTAssertTrue(reason.rawValue.utf8.allSatisfy(ReasonJSON.isPlain), reason.rawValue)
            XCTAssertEqual(ReasonJSON.bytes(reason), ReasonJSON.bytes(reason.rawValue))
        }
    }
}
