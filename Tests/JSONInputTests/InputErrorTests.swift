import JSONInput
import XCTest

final class InputErrorTests: XCTestCase {
    func testDescriptionJoinsThePartsPresent() {
        let cases: [(InputError, String)] = [
            (
                InputError(path: "listeners[0].port", message: "expected an integer from 1 to 65535, got \"x\""),
                "listeners[0].port: expected an integer from 1 to 65535, got \"x\""
            ),
            (InputError(path: "", message: "the document is empty"), "the document is empty"),
            (
                InputError(path: "", message: "trailing comma before '}'", line: 3, column: 12),
                "line 3, column 12: trailing comma before '}'"
            ),
            (
                InputError(path: "faults[0]", message: "duplicate key \"id\"", line: 2, column: 9),
                "faults[0] (line 2, column 9): duplicate key \"id\""
            ),
        ]
        for (error, expected) in cases {
            XCTAssertEqual(error.description, expected)
        }
    }

    func testJoinAndPrefix() {
        let cases: [(String, String, String)] = [
            ("", "port", "port"), ("listeners", "[0]", "listeners[0]"), ("listeners[0]", "port", "listeners[0].port"),
            ("faults", "", "faults"), ("", "", ""),
        ]
        for (parent, child, expected) in cases {
            XCTAssertEqual(InputError.join(parent, child), expected, "\(parent) + \(child)")
        }
        let error = InputError(path: "action.status", message: "m", line: 1, column: 2).prefixed("faults[1]")
        XCTAssertEqual(error, InputError(path: "faults[1].action.status", message: "m", line: 1, column: 2))
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(stringValue: String) { self.stringValue = stringValue }
        init(intValue: Int) {
            stringValue = "Index \(intValue)"
            self.intValue = intValue
        }
    }

    private enum IntKeys: Int, CodingKey { case zero = 0 }

    func testPathFromCodingPath() {
        let cases: [([any CodingKey], String)] = [
            ([], ""),
            (
                [Key(stringValue: "faults"), Key(intValue: 2), Key(stringValue: "action"), Key(stringValue: "type")],
                "faults[2].action.type"
            ),
            ([Key(intValue: 0), Key(intValue: 1)], "[0][1]"),
            // A key with an integer value that is not a position stays a key.
            ([Key(stringValue: "map"), IntKeys.zero], "map.zero"),
        ]
        for (codingPath, expected) in cases {
            XCTAssertEqual(InputError.path(codingPath), expected)
            XCTAssertEqual(InputError(at: codingPath, "m").path, expected)
        }
    }

    func testQuoted() {
        let cases: [(String, String)] = [
            ("abc", "\"abc\""), ("a\"b\\c", "\"a\\\"b\\\\c\""), ("\n\t\r\u{1}", "\"\\n\\t\\r\\u0001\""), ("é", "\"é\""),
            (String(repeating: "x", count: 61), "\"" + String(repeating: "x", count: 60) + "...\""),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(InputError.quoted(text), expected)
        }
    }
}
