import XCTest
@testable import APNsCore

final class CommentedJSONParserTests: XCTestCase {
    private func parse(_ text: String) throws(ConfigurationError) -> JSONValue {
        try CommentedJSONParser.parse(Array(text.utf8))
    }

    func testValuesOfEveryKind() throws {
        let value = try parse(#"{"s": "x", "n": -2.5e3, "z": 0, "t": true, "f": false, "nil": null, "a": [1, [ ]], "o": {}}"#)
        XCTAssertEqual(value, .object([
            JSONMember(key: "s", value: .string("x")),
            JSONMember(key: "n", value: .number("-2.5e3")),
            JSONMember(key: "z", value: .number("0")),
            JSONMember(key: "t", value: .bool(true)),
            JSONMember(key: "f", value: .bool(false)),
            JSONMember(key: "nil", value: .null),
            JSONMember(key: "a", value: .array([.number("1"), .array([])])),
            JSONMember(key: "o", value: .object([])),
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
        XCTAssertEqual(try parse(text), .object([
            JSONMember(key: "a", value: .number("1")),
            JSONMember(key: "b", value: .array([.number("1"), .number("2"), .number("3")])),
            JSONMember(key: "c", value: .object([JSONMember(key: "d", value: .bool(true))])),
        ]))
    }

    func testCommentMarkersInsideStringsAreText() throws {
        XCTAssertEqual(try parse(#"{"url": "http://example.com/*x*/", "p": "a//b"}"#), .object([
            JSONMember(key: "url", value: .string("http://example.com/*x*/")),
            JSONMember(key: "p", value: .string("a//b")),
        ]))
    }

    func testStringEscapes() throws {
        let value = try parse(#"["\"\\\/\b\f\n\r\t", "\u00e9\u0041", "\ud83d\ude00", "é"]"#)
        XCTAssertEqual(value, .array([.string("\"\\/\u{08}\u{0C}\n\r\t"), .string("éA"), .string("😀"), .string("é")]))
    }

    func testByteOrderMarkAndCRLFAreAccepted() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("{\r\n\"a\": 1\r\n}\r\n".utf8)
        XCTAssertEqual(try CommentedJSONParser.parse(bytes), .object([JSONMember(key: "a", value: .number("1"))]))
    }

    func testDuplicateKeysAreKeptForTheReaderToReport() throws {
        XCTAssertEqual(try parse(#"{"a": 1, "a": 2}"#), .object([
            JSONMember(key: "a", value: .number("1")), JSONMember(key: "a", value: .number("2")),
        ]))
    }

    func testSyntaxErrorsGiveLineColumnAndCause() {
        let rows: [ErrorRow<String>] = [
            ErrorRow("", "the document is empty; expected a JSON object"),
            ErrorRow("  // only a comment\n", "the document is empty; expected a JSON object"),
            ErrorRow(#"{"a" 1}"#, #"line 1, column 6: expected ':' after the key "a""#),
            ErrorRow(#"{"maxRecords": 5,,}"#, "line 1, column 18: unexpected ','; expected a key in double quotes or '}'"),
            ErrorRow("{\n  maxRecords: 5\n}", "line 2, column 3: unexpected 'm'; expected a key in double quotes or '}'"),
            ErrorRow(#"{"a": 'x'}"#, "line 1, column 7: unexpected single quote (strings need double quotes); expected a value"),
            ErrorRow("{ /* x }", "line 1, column 3: unterminated /* comment"),
            ErrorRow(#"{"a": "x}"#, "line 1, column 7: unterminated string"),
            ErrorRow(#"{"a": 01}"#, "line 1, column 8: numbers must not have leading zeros"),
            ErrorRow(#"{"a": 1.}"#, "line 1, column 9: expected a digit after '.'"),
            ErrorRow(#"{"a": 1e}"#, "line 1, column 9: expected a digit in the exponent"),
            ErrorRow(#"{"a": -}"#, "line 1, column 8: expected a digit"),
            ErrorRow(#"{"a": tru}"#, "line 1, column 7: unexpected 't'; expected a value (strings need double quotes)"),
            ErrorRow(#"{"a": yes}"#, "line 1, column 7: unexpected 'y'; expected a value"),
            ErrorRow("{} x", "line 1, column 4: unexpected text after the end of the document"),
            ErrorRow(#"{"a": "\q"}"#, "line 1, column 8: invalid escape sequence in a string"),
            ErrorRow(#"{"a": "\u12"}"#, "line 1, column 10: expected four hexadecimal digits after \\u"),
            ErrorRow(#"{"a": "\ud800"}"#, "line 1, column 14: unpaired UTF-16 surrogate in a \\u escape"),
            ErrorRow(#"{"a": [1, 2}"#, "line 1, column 12: unexpected '}'; expected ',' or ']'"),
            ErrorRow(#"{"a": 1 "b": 2}"#, #"line 1, column 9: unexpected '"'; expected ',' or '}' after the value of "a""#),
            ErrorRow("{\"a\": 1,\n \"b\": }", "line 2, column 7: unexpected '}'; expected a value"),
            ErrorRow("{\"é\": x}", "line 1, column 7: unexpected 'x'; expected a value"),
            ErrorRow("{\"a\": \"x\ty\"}", "line 1, column 9: control character in a string (write \\n, \\t or \\u00XX)"),
            ErrorRow("{\"a\": [", "line 1, column 8: unexpected end of the document; expected ']'"),
            ErrorRow("{\"a\": ", "line 1, column 7: unexpected end of the document; expected a value"),
            ErrorRow("{\"a\"", "line 1, column 5: expected ':' after the key \"a\""),
            ErrorRow(String(repeating: "[", count: 65), "line 1, column 65: nesting deeper than 64 levels"),
        ]
        for row in rows {
            do {
                _ = try parse(row.input)
                XCTFail("parsed: \(row.input)", line: row.line)
            } catch {
                XCTAssertEqual(error.field, "", line: row.line)
                row.check(error.message)
            }
        }
    }

    func testInvalidUTF8IsRejected() {
        XCTAssertThrowsError(try CommentedJSONParser.parse([0x7B, 0xFF, 0x7D])) { error in
            XCTAssertEqual((error as? ConfigurationError)?.message, "the document is not valid UTF-8")
        }
    }

    func testNestingUpToTheLimitIsAccepted() throws {
        let depth = CommentedJSONParser.maxDepth
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        XCTAssertNoThrow(try parse(text))
    }

    func testRenderingForMessages() {
        XCTAssertEqual(JSONValue.string("a\"b\\c\n\u{01}").rendered, #""a\"b\\c\n\u0001""#)
        XCTAssertEqual(JSONValue.number("1e3").rendered, "1e3")
        XCTAssertEqual(JSONValue.array([]).rendered, "an array")
        XCTAssertEqual(JSONValue.object([]).rendered, "an object")
        XCTAssertEqual(JSONValue.null.rendered, "null")
        XCTAssertEqual(JSONValue.string(String(repeating: "x", count: 70)).rendered,
                       "\"" + String(repeating: "x", count: 60) + "...\"")
    }
}
