import XCTest

@testable import JSONInput

/// Foundation's JSON5 scanner (`JSON5Scanner.validateNumber`, swift-foundation of Swift 6.3 on
/// Linux) can trap on a number with a huge exponent that ends the document: it reads past the
/// number's last byte. Found by `ConfigurationFuzz` (docs/fuzzing.md; the inputs are kept in
/// fuzz/corpus/ConfigurationFuzz as `regression-json5-exponent-*`): a configuration file
/// `2e4990000002003764` stopped `mock-apns` instead of being refused. JSON5 documents are now
/// handed to Foundation with a newline after them. Without it, this test crashes the test
/// process (in 15 runs of 15 of the same sequence in a plain program).
final class JSON5NumberAtEndTests: XCTestCase {
    static let documents = [
        "2e49900023000203\u{07}07642052", "2e49900000020037642052", "2e4990000002003764",
        "[2e4990000002003764]", "{\"a\":2e4990000002003764}", "1e99999999999999999999",
    ]
    /// Numbers whose exponent has no digit: Foundation's JSON5 scanner traps on them wherever they
    /// are (`29999...e-`: regression-json5-exponent-3), so the syntax check refuses them first.
    static let incompleteExponents = [
        String(repeating: "9", count: 38) + "e-", "1e-", "[1e+]", "{a: 1E}", "{\"a\": [2e-\n]}",
    ]

    /// Numbers followed by what Foundation reads as more of the number (`0x0xAA`:
    /// regression-json5-number-1): the same trap, the same early refusal.
    static let runOnNumbers = ["0x0xAA", "[0x1x]", "{a: 1.5.5}", "1e5e5", "-0x", "+Infinityx"]

    func testNumbersRunningOnAreRefusedBeforeFoundation() {
        for _ in 0..<20 {
            for document in Self.runOnNumbers {
                XCTAssertThrowsError(
                    try StrictJSONDecoder(options: .init(syntax: .json5)).decode(
                        JSONNode.self, from: Array(document.utf8)),
                    document)
            }
        }
        XCTAssertEqual(JSONSyntaxCheck.firstProblem(in: Array("0x0xAA".utf8), json5: true)?.inNumber, true)
        XCTAssertNil(JSONSyntaxCheck.firstProblem(in: Array("[0x1F, -Infinity, .5, 5., +1e-3]".utf8), json5: true))
    }

    func testIncompleteExponentsAreRefusedWithTheirPlace() {
        for _ in 0..<20 {
            for document in Self.incompleteExponents {
                XCTAssertThrowsError(
                    try StrictJSONDecoder(options: .init(syntax: .json5)).decode(
                        JSONNode.self, from: Array(document.utf8)),
                    document
                ) { error in
                    XCTAssertTrue("\(error)".contains("expected a digit in the exponent"), "\(error)")
                }
            }
        }
    }

    func testHugeExponentsAtTheEndAreRefusedNotATrap() {
        for _ in 0..<20 {
            for document in Self.documents {
                XCTAssertThrowsError(
                    try StrictJSONDecoder(options: .init(syntax: .json5)).decode(
                        JSONNode.self, from: Array(document.utf8)),
                    document)
                XCTAssertThrowsError(try JSONNode.parse(Array(document.utf8), json5: true), document)
            }
        }
    }

    /// The newline changes nothing else: numbers at the end still read as before.
    func testNumbersAtTheEndStillRead() throws {
        XCTAssertEqual(try JSONNode.parse(Array("12".utf8), json5: true), .int(12))
        XCTAssertEqual(try JSONNode.parse(Array("[1.5e3]".utf8), json5: true), .array([.int(1500)]))
        XCTAssertEqual(try JSONNode.parse(Array("{a:1e2}".utf8), json5: true), .object(["a": .int(100)]))
    }
}
