import Foundation
import JSONInput
import XCTest

@testable import APNsCore
@testable import Configuration

/// `ConfigurationFile.document`: `StrictJSONDecoder`'s JSON5, the tree the configuration reader
/// walks.
final class ConfigurationDocumentTests: XCTestCase {
    private func decode(_ text: String) throws(ConfigurationError) -> JSONNode {
        try ConfigurationFile.document(Array(text.utf8))
    }

    func testValuesOfEveryKindWithMembersSortedByKey() throws {
        let value = try decode(
            #"{"s": "x", "n": -2.5e3, "z": 0, "t": true, "f": false, "nil": null, "a": [1, [ ]], "o": {}}"#)
        XCTAssertEqual(
            value,
            .object([
                "a": .array([.int(1), .array([])]),
                "f": .bool(false),
                "n": .int(-2500),
                "nil": .null,
                "o": .object([:]),
                "s": .string("x"),
                "t": .bool(true),
                "z": .int(0),
            ]))
    }

    func testCommentsAndTrailingCommasAreAllowed() throws {
        let text = """
            // leading line comment
            /* block
               comment */ {
              "a": 1, // after a value
              /* before a key */ "b": [1, 2, /* inside */ 3,],
              "c": { "d": true, },
            } // trailing
            """
        XCTAssertEqual(
            try decode(text),
            .object([
                "a": .int(1),
                "b": .array([.int(1), .int(2), .int(3)]),
                "c": .object(["d": .bool(true)]),
            ]))
    }

    func testOtherJSON5RelaxationsAreAllowed() throws {
        XCTAssertEqual(
            try decode("{maxRecords: 5, 'name': 'x'}"),
            .object([
                "maxRecords": .int(5),
                "name": .string("x"),
            ]))
    }

    func testCommentMarkersInsideStringsAreText() throws {
        XCTAssertEqual(
            try decode(#"{"url": "http://example.com/*x*/", "p": "a//b"}"#),
            .object([
                "p": .string("a//b"),
                "url": .string("http://example.com/*x*/"),
            ]))
    }

    /// Linux `JSONSerialization` returns booleans as `NSNumber`s; the decoder keeps them apart,
    /// so `"plaintext": 1` cannot pass as `true`.
    func testBooleansStayApartFromNumbers() throws {
        XCTAssertEqual(
            try decode("[true, false, 1, 0, 1.0]"),
            .array([.bool(true), .bool(false), .int(1), .int(0), .int(1)]))
    }

    /// Integral numbers in any notation are integers; beyond `Int64` they are unsigned, then doubles.
    func testNumbersAreCanonical() throws {
        let value = try decode(
            "[2197, 2197.0, 2.197e3, -0, 1.5, -2.25, 1e30, 9223372036854775807, 9223372036854775808]")
        XCTAssertEqual(
            value,
            .array([
                .int(2197), .int(2197), .int(2197), .int(0), .double(1.5), .double(-2.25), .double(1e30),
                .int(9_223_372_036_854_775_807), .uint(9_223_372_036_854_775_808),
            ]))
        XCTAssertEqual(try decode("[1e30, 1.5]").rendered, "an array")
        XCTAssertEqual(JSONNode.double(1e30).rendered, "1e+30")
    }

    func testStringEscapes() throws {
        let value = try decode(#"["\"\\\/\b\f\n\r\t", "\u00e9\u0041", "\ud83d\ude00", "é"]"#)
        XCTAssertEqual(value, .array([.string("\"\\/\u{08}\u{0C}\n\r\t"), .string("éA"), .string("😀"), .string("é")]))
    }

    func testByteOrderMarkAndCRLFAreAccepted() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("{\r\n\"a\": 1\r\n}\r\n".utf8)
        XCTAssertEqual(try ConfigurationFile.document(bytes), .object(["a": .int(1)]))
    }

    /// A key written twice is refused (it used to keep the first silently), with its place.
    func testDuplicateKeysAreRefused() throws {
        XCTAssertThrowsError(try decode(#"{"a": 1, "a": 2}"#)) { error in
            XCTAssertEqual(
                (error as? ConfigurationError)?.message, #"not valid JSON: line 1, column 10: duplicate key "a""#)
        }
        XCTAssertThrowsError(try decode(#"{"listeners": [{"port": 1, "port": 2}]}"#)) { error in
            XCTAssertEqual(
                (error as? ConfigurationError)?.description,
                #"listeners[0]: not valid JSON: line 1, column 28: duplicate key "port""#)
        }
    }

    func testSyntaxErrorsNameTheLineTheColumnAndTheField() {
        let rows: [(String, String, String)] = [
            (
                "{\n  \"a\": 1,\n  \"b\" 2\n}", "",
                "not valid JSON: line 3, column 7: expected ':' after the key \"b\", got '2'"
            ),
            (
                "{\"listeners\": [{\"port\": tru}]}", "listeners[0].port",
                "not valid JSON: line 1, column 25: expected a value, got 'tru' (the literals are true, false and null; strings take quotes)"
            ),
        ]
        for (text, field, message) in rows {
            XCTAssertThrowsError(try decode(text), text) { error in
                XCTAssertEqual((error as? ConfigurationError)?.field, field, text)
                XCTAssertEqual((error as? ConfigurationError)?.message, message, text)
            }
        }
    }

    func testStructuralSyntaxErrorsSayTheDocumentIsNotJSON() {
        let rows = [
            #"{"a" 1}"#, #"{"maxRecords": 5,,}"#, "{ /* x }", #"{"a": "x}"#, #"{"a": tru}"#, "{} x",
            #"{"a": [1, 2}"#, #"{"a": 1 "b": 2}"#, "{\"a\": 1,\n \"b\": }", "{\"a\": [", "{\"a\": ",
            "// only a comment\n",
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
        ]
        for text in rows {
            XCTAssertThrowsError(try decode(text), text) { error in
                let error = error as? ConfigurationError
                // Every one is located; one inside a value names that value's field too.
                XCTAssertEqual(
                    error?.message.hasPrefix("not valid JSON: line "), true, "\(text): \(String(describing: error))")
                XCTAssertEqual(error?.message.contains(", column "), true, "\(text): \(String(describing: error))")
            }
        }
    }

    /// Strings and numbers are parsed lazily by Foundation; their errors name the value's field.
    func testMalformedValuesNameTheirField() {
        let rows: [(String, String)] = [
            (#"{"a": "\q"}"#, "a"),
            ("{\"a\": \"x\ty\"}", "a"),
            (#"{"a": "\ud800"}"#, "a"),
            (#"{"a": 01}"#, "a"),
            (#"{"listeners": [{"x": 1}, {"port": 1e999}]}"#, "listeners[1].port"),
            (#"{"0": ["x", "\q"]}"#, "0[1]"),
        ]
        for (text, field) in rows {
            XCTAssertThrowsError(try decode(text), text) { error in
                let error = error as? ConfigurationError
                XCTAssertEqual(error?.field, field, text)
                let message = error?.message ?? ""
                XCTAssertTrue(
                    message.hasPrefix("not valid JSON: ") && message.count > "not valid JSON: ".count,
                    "\(text): \(message)")
            }
        }
    }

    /// Foundation's refusals read as words, with the position when Foundation gives one: no Swift
    /// spelling of its error enum in the message.
    func testMalformedValuesAreWorded() {
        let rows: [(String, String)] = [
            ("{\n  \"a\": \"\\q\"}", #"not valid JSON: line 2, column 10: invalid escape \q in a string"#),
            (
                "{\"a\": \"x\ty\"}",
                #"not valid JSON: line 1, column 9: control character U+0009 in a string (write it as an escape such as \t or \u0009)"#
            ),
            (#"{"a": 1e400}"#, "not valid JSON: the number 1e400 does not fit a 64-bit floating-point value"),
        ]
        for (text, message) in rows {
            XCTAssertThrowsError(try decode(text), text) { error in
                XCTAssertEqual((error as? ConfigurationError)?.message, message, text)
            }
        }
    }

    func testEmptyAndNonUTF8DocumentsAreRejected() {
        for text in ["", " \r\n\t"] {
            XCTAssertThrowsError(try decode(text)) { error in
                XCTAssertEqual((error as? ConfigurationError)?.message, "the document is empty; expected a JSON object")
            }
        }
        XCTAssertThrowsError(try ConfigurationFile.document([0x7B, 0xFF, 0x7D])) { error in
            XCTAssertEqual(
                (error as? ConfigurationError)?.message,
                "the document is not valid UTF-8 (byte 0xFF at line 1, column 2)")
        }
    }

    func testADocumentThatIsNotAnObjectIsRefused() {
        for (text, got) in [("[]", "an array"), (#""x""#, #""x""#), ("1", "1"), ("null", "null")] {
            XCTAssertThrowsError(try parseConfiguration(text), text) { error in
                XCTAssertEqual(
                    (error as? ConfigurationError)?.description, "expected a JSON object at the top level, got \(got)")
            }
        }
    }

    func testRenderingForMessages() {
        XCTAssertEqual(JSONNode.string("a\"b\\c\n\u{01}").rendered, #""a\"b\\c\n\u0001""#)
        XCTAssertEqual(JSONNode.double(1e30).rendered, "1e+30")
        XCTAssertEqual(JSONNode.array([]).rendered, "an array")
        XCTAssertEqual(JSONNode.object([:]).rendered, "an object")
        XCTAssertEqual(JSONNode.null.rendered, "null")
        XCTAssertEqual(
            JSONNode.string(String(repeating: "x", count: 70)).rendered,
            "\"" + String(repeating: "x", count: 60) + "...\"")
    }

    /// Found by `ConfigurationFuzz` (fuzz/corpus/ConfigurationFuzz/regression-json5-exponent-*):
    /// a document that is a number with a huge exponent stopped the process in Foundation's
    /// JSON5 scanner (`JSON5NumberAtEndTests`); it is refused as not valid JSON.
    func testAHugeExponentAtTheEndIsRefused() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../fuzz/corpus/ConfigurationFuzz").standardized
        for name in [
            "regression-json5-exponent-1", "regression-json5-exponent-2", "regression-json5-exponent-3",
            "regression-json5-number-1",
        ] {
            let bytes = try [UInt8](Data(contentsOf: corpus.appendingPathComponent(name)))
            for _ in 0..<20 {
                XCTAssertThrowsError(try ConfigurationFile.parse(bytes), name)
            }
        }
        for _ in 0..<20 {
            for text in JSON5DocumentsEndingInANumber.all {
                XCTAssertThrowsError(try ConfigurationFile.parse(Array(text.utf8)), text)
            }
        }
    }
}

/// The documents of `JSON5NumberAtEndTests` (JSONInputTests), read here as configuration files.
private enum JSON5DocumentsEndingInANumber {
    static let all = [
        "2e49900023000203\u{07}07642052", "2e49900000020037642052", "2e4990000002003764",
        "[2e4990000002003764]", "{\"a\":2e4990000002003764}", "1e99999999999999999999",
    ]
}
