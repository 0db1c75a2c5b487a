import Foundation
import XCTest

@testable import JSONInput

final class JSONSyntaxCheckTests: XCTestCase {
    /// The first problem's line and column (1-based), message and field path.
    private func located(_ text: String) -> (line: Int, column: Int, message: String, path: String)? {
        let bytes = Array(text.utf8)
        guard let problem = JSONSyntaxCheck.firstProblem(in: bytes) else { return nil }
        let position = TextPosition.lineAndColumn(of: problem.offset, in: bytes)
        return (position.line, position.column, problem.message, PathComponent.render(problem.path))
    }

    func testValidDocumentsPass() {
        let documents = [
            "{}", "[]", "0", "-0", "-1.5e+10", "1E-3", "0.25", "true", "false", "null", "\"\"", " \t\r\n{ } \n",
            "{\"a\": [1, 2, {\"b\": null}], \"c\": \"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00\"}",
            "{\"é\": \"ü — 😀\"}", "[[[[[]]]]]", "{\"a\": {\"a\": {\"a\": 1}}}",  // the same key in nested objects
            "[{\"id\": 1}, {\"id\": 2}]",  // and in sibling objects
        ]
        for document in documents {
            XCTAssertNil(located(document).map { "\($0)" }, document)
        }
    }

    func testMalformedDocumentsAreLocated() {
        let cases: [(String, Int, Int, String, String)] = [
            // Trailing commas (Foundation accepts them on Linux), pointing at the comma.
            ("{\"a\": 1,}", 1, 8, "trailing comma before '}'", ""),
            ("[1, 2,]", 1, 6, "trailing comma before ']'", ""),
            ("{\n  \"a\": [\n    1,\n  ]\n}", 3, 6, "trailing comma before ']'", "a"),
            // A missing quote: the string runs to the line break, or to the end.
            ("{\"a\": \"x,\n \"b\": 1}", 1, 10, "unescaped control character a line break in a string", "a"),
            ("{\"a\": \"x}", 1, 7, "unterminated string: no closing quote before the end of the document", "a"),
            ("{\"a: 1}", 1, 2, "unterminated string", ""),
            ("{a: 1}", 1, 2, "expected a key in double quotes, got 'a'", ""),
            ("{'a': 1}", 1, 2, "expected a key in double quotes, got \"'\"", ""),
            // Truncated documents: the position just after the last character.
            ("{\"a\":", 1, 6, "unexpected end of the document; expected a value", "a"),
            ("[1, 2", 1, 6, "unexpected end of the document; expected ',' or ']'", ""),
            ("{\"a\": 1", 1, 8, "unexpected end of the document; expected ',' or '}'", ""),
            ("{\n\"a\": [\n", 3, 1, "unexpected end of the document; expected a value", "a[0]"),
            ("{\"a\"", 1, 5, "expected ':' after the key \"a\", got the end of the document", ""),
            ("\"abc\\", 1, 5, "unterminated string: the document ends inside an escape", ""),
            // Bad escapes, pointing at the backslash.
            ("{\"a\": \"x\\qy\"}", 1, 9, "invalid escape '\\q'", "a"),
            ("[\"\\u12G4\"]", 1, 3, "invalid escape: \\u takes 4 hexadecimal digits", "[0]"),
            ("[\"\\ud800\"]", 1, 3, "high surrogate without a low one", "[0]"),
            ("[\"\\ud800\\u0041\"]", 1, 3, "high surrogate without a low one", "[0]"),
            ("[\"\\udc00\"]", 1, 3, "low surrogate without a high one", "[0]"),
            ("[\"a\u{1}\"]", 1, 4, "unescaped control character U+0001", "[0]"),
            ("[\"a\tb\"]", 1, 4, "unescaped control character a tab", "[0]"),
            // Multi-line documents: lines end at \n, \r\n counts once.
            ("{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3, "expected ',' or '}' after an object member, got '\"'", ""),
            ("{\r\n  \"a\": 1\r\n  \"b\": 2\r\n}", 3, 3, "expected ',' or '}' after an object member", ""),
            ("[\n1,\n2,\n3\n4]", 5, 1, "expected ',' or ']' after an array element, got '4'", ""),
            // Multibyte UTF-8 before the error: columns count characters, not bytes.
            ("{\"é\": \"ü\", x}", 1, 12, "expected a key in double quotes, got 'x'", ""),
            ("{\"日本\": \"語\" \"x\": 1}", 1, 12, "expected ',' or '}' after an object member", ""),
            ("[\"😀😀\", tru]", 1, 8, "expected a value, got 'tru'", "[1]"),
            ("{\"k\": \"é\"\n, \"ü\": nul}", 2, 8, "expected a value, got 'nul'", "ü"),
            // Numbers.
            ("[01]", 1, 3, "a number cannot have a leading zero", "[0]"),
            ("[1.]", 1, 4, "expected a digit after the decimal point, got ']'", "[0]"),
            ("[1e]", 1, 4, "expected a digit in the exponent", "[0]"),
            ("[-]", 1, 3, "expected a digit after '-'", "[0]"),
            ("[.5]", 1, 2, "expected a value, got '.'", "[0]"),
            ("[+1]", 1, 2, "expected a value, got '+'", "[0]"),
            ("[NaN]", 1, 2, "expected a value, got 'NaN'", "[0]"),
            // Other JSON5 and stray characters.
            ("{\"a\": 1 // why\n}", 1, 9, "expected ',' or '}' after an object member, got '/'", ""),
            ("[// why\n1]", 1, 2, "comments are not allowed in JSON", "[0]"),
            ("{\"a\": 1}}", 1, 9, "unexpected '}' after the JSON value", ""),
            ("{\"a\": 1} x", 1, 10, "unexpected 'x' after the JSON value", ""),
            ("{\"a\" 1}", 1, 6, "expected ':' after the key \"a\", got '1'", ""),
            ("[1 2]", 1, 4, "expected ',' or ']' after an array element, got '2'", ""),
            ("[,1]", 1, 2, "expected a value, got ','", "[0]"),
            ("{,}", 1, 2, "expected a key in double quotes, got ','", ""),
            ("{\"a\": ×}", 1, 7, "expected a value, got '×'", "a"),
            // The path names the field inside which the error is.
            ("{\"faults\": [{\"action\": {\"type\": \"x\",}}]}", 1, 36, "trailing comma", "faults[0].action"),
        ]
        for (text, line, column, message, path) in cases {
            guard let problem = located(text) else {
                XCTFail("no problem found in \(text.debugDescription)")
                continue
            }
            XCTAssertEqual(problem.line, line, text.debugDescription)
            XCTAssertEqual(problem.column, column, text.debugDescription)
            XCTAssertTrue(
                problem.message.hasPrefix(message) || problem.message.contains(message),
                "\(text.debugDescription): \(problem.message)")
            XCTAssertEqual(problem.path, path, text.debugDescription)
        }
    }

    func testDuplicateKeysAreRefusedWithTheirPath() {
        let cases: [(String, Int, Int, String, String)] = [
            ("{\"a\": 1, \"a\": 2}", 1, 10, "duplicate key \"a\"", ""),
            ("{\"a\": 1,\n \"b\": {\"c\": 1, \"c\": 2}}", 2, 16, "duplicate key \"c\"", "b"),
            ("[{}, {\"id\": 1, \"x\": 0, \"id\": 2}]", 1, 24, "duplicate key \"id\"", "[1]"),
            // Keys compare after escapes are resolved.
            ("{\"a\": 1, \"\\u0061\": 2}", 1, 10, "duplicate key \"a\"", ""),
            ("{\"é\": 1, \"\\u00e9\": 2}", 1, 10, "duplicate key \"é\"", ""),
        ]
        for (text, line, column, message, path) in cases {
            guard let problem = located(text) else {
                XCTFail("no problem found in \(text.debugDescription)")
                continue
            }
            XCTAssertEqual([problem.line, problem.column], [line, column], text.debugDescription)
            XCTAssertEqual(problem.message, message)
            XCTAssertEqual(problem.path, path)
        }
    }

    func testDepthLimit() {
        let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        XCTAssertEqual(located(deep)?.message, "nested too deeply (more than 512 levels)")
        let fine = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        XCTAssertNil(located(fine).map { "\($0)" })
    }

    func testTextPosition() {
        let text = Array("ab\ncé\r\n😀x".utf8)
        let cases: [(Int, Int, Int)] = [
            (0, 1, 1), (1, 1, 2), (2, 1, 3), (3, 2, 1), (4, 2, 2), (6, 2, 3), (7, 2, 4),
            (8, 3, 1), (12, 3, 2), (13, 3, 3),
        ]
        for (offset, line, column) in cases {
            let position = TextPosition.lineAndColumn(of: offset, in: text)
            XCTAssertEqual([position.line, position.column], [line, column], "offset \(offset)")
        }
        XCTAssertNil(TextPosition.firstInvalidUTF8(in: Array("é😀".utf8)))
        XCTAssertEqual(TextPosition.firstInvalidUTF8(in: [0x61, 0xFF, 0x62]), 1)
        XCTAssertEqual(TextPosition.firstInvalidUTF8(in: [0x61, 0x62, 0xC3]), 2)  // truncated é
        XCTAssertEqual(TextPosition.firstInvalidUTF8(in: [0xC0, 0x80]), 0)  // overlong
    }
}

final class JSONSyntaxCheckJSON5Tests: XCTestCase {
    private func located(_ text: String) -> (line: Int, column: Int, message: String, path: String)? {
        let bytes = Array(text.utf8)
        guard let problem = JSONSyntaxCheck.firstProblem(in: bytes, json5: true) else { return nil }
        let position = TextPosition.lineAndColumn(of: problem.offset, in: bytes)
        return (position.line, position.column, problem.message, PathComponent.render(problem.path))
    }

    /// Documents Foundation's JSON5 reads: the check must pass every one, or it would refuse
    /// (in duplicate checking) or mislocate what Foundation accepts.
    func testValidJSON5PassesAsInFoundation() throws {
        let documents = [
            "// leading comment\n{a: 1, /* inline */ 'b': 'x', \"c\": [1, 2,],}\n// trailing",
            "{listeners: [{port: 2197, name: 'sandbox'},]}",
            "[+1, -1, .5, 5., 0x1F, 1e3, Infinity, -Infinity, NaN, +Infinity]",
            "{s: 'line one \\\ncontinued'}",
            "{/* a */ a /* b */ : /* c */ 1 /* d */}",
            "[1, // one\n 2]",
        ]
        for document in documents {
            let decoder = JSONDecoder()
            decoder.allowsJSON5 = true
            XCTAssertNoThrow(
                try decoder.decode(JSONNode.Builder.self, from: Data(document.utf8)), "Foundation: \(document)")
            XCTAssertNil(located(document).map { "\($0)" }, document)
        }
    }

    func testMalformedJSON5IsLocated() {
        let cases: [(String, Int, Int, String, String)] = [
            ("{a: [1,}", 1, 8, "expected a value, got '}'", "a[1]"),
            ("{\n  a: [1 2]}", 2, 9, "expected ',' or ']' after an array element, got '2'", "a"),
            ("{a: 'x}", 1, 5, "unterminated string", "a"),
            ("{a: 'x\ny'}", 1, 7, "unescaped a line break in a string", "a"),
            ("{a: [1]} x", 1, 10, "unexpected 'x' after the JSON value", ""),
            ("{a: 1 /* open", 1, 7, "unterminated comment", ""),
            ("{a: 1,, b: 2}", 1, 7, "expected a key, got ','", ""),
            ("{1a: 1}", 1, 2, "expected a key, got '1'", ""),
            ("{a: 0x}", 1, 7, "expected a hexadecimal digit after 0x, got '}'", "a"),
            ("{a: 01}", 1, 6, "a number cannot have a leading zero", "a"),
            ("{a: +}", 1, 6, "expected a value, got '}'", "a"),
            ("{a: '\\1'}", 1, 6, "invalid escape '\\1' (digits cannot be escaped)", "a"),
            ("{a: '\\xZ1'}", 1, 6, "invalid escape: \\x takes 2 hexadecimal digits", "a"),
            ("{é: 'ü', b: nope}", 1, 13, "expected a value, got 'nope'", "b"),
            ("{a: 1, 'a': 2}", 1, 8, "duplicate key \"a\"", ""),
            ("{a: 1, \"a\": 2}", 1, 8, "duplicate key \"a\"", ""),
        ]
        for (text, line, column, message, path) in cases {
            guard let problem = located(text) else {
                XCTFail("no problem found in \(text.debugDescription)")
                continue
            }
            XCTAssertEqual([problem.line, problem.column], [line, column], text.debugDescription)
            XCTAssertTrue(problem.message.hasPrefix(message), "\(text.debugDescription): \(problem.message)")
            XCTAssertEqual(problem.path, path, text.debugDescription)
        }
    }
}

final class ValuePositionTests: XCTestCase {
    func testPositionsOfValuesAndTheirNearestEnclosingValue() {
        let text = "{\n  \"a\": {\"b\": [1,\n    {\"c\": true}]},\n  // x\n  d: 'e'\n}"
        let bytes = Array(text.utf8)
        let rows: [(String, (Int, Int)?)] = [
            ("", (1, 1)), ("a", (2, 8)), ("a.b", (2, 14)), ("a.b[0]", (2, 15)), ("a.b[1]", (3, 5)),
            ("a.b[1].c", (3, 11)), ("d", (5, 6)),
            // Not in the document: the nearest enclosing value.
            ("a.b[1].missing", (3, 5)), ("a.b[7]", (2, 14)), ("zzz", (1, 1)),
        ]
        for (path, expected) in rows {
            let found = StrictJSONDecoder.position(of: path, in: bytes, json5: true)
            XCTAssertEqual(found?.line, expected?.0, path)
            XCTAssertEqual(found?.column, expected?.1, path)
        }
        // Strict JSON: the JSON5 key `d` is a problem; values before it are still found.
        XCTAssertEqual(StrictJSONDecoder.position(of: "a.b[1].c", in: bytes)?.line, 3)
    }
}
