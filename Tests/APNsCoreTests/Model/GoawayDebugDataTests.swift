import Foundation
import XCTest

@testable import APNsCore

/// `GoawayDebugData` spells APNs's `{"reason":...}` and escapes other text as JSONSerialization does.
final class GoawayDebugDataTests: XCTestCase {
    func testReasonsAreSpelledAsAPNsSendsThem() {
        XCTAssertEqual(GoawayDebugData.reason(.shutdown), Array(#"{"reason":"Shutdown"}"#.utf8))
        XCTAssertEqual(
            GoawayDebugData.reason(.badCertificateEnvironment), Array(#"{"reason":"BadCertificateEnvironment"}"#.utf8))
        XCTAssertEqual(GoawayDebugData.reason(""), Array(#"{"reason":""}"#.utf8))
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
            XCTAssertEqual(GoawayDebugData.reason(text), Array(expected), text)
            let decoded =
                try JSONSerialization.jsonObject(with: Data(GoawayDebugData.reason(text))) as? [String: String]
            XCTAssertEqual(decoded, ["reason": text])
        }
        XCTAssertEqual(GoawayDebugData.reason("a/b"), Array(#"{"reason":"a/b"}"#.utf8))
    }
}
