import JSONInput
import XCTest

final class FoundationJSONErrorTextTests: XCTestCase {
    func testEnumCaseSpellingsBecomeWords() {
        let location = "location: FoundationEssentials.JSONError.SourceLocation(line: 3, column: 15, index: 40)"
        let rows: [(String, String, Int?, Int?)] = [
            ("unexpectedEscapedCharacter(ascii: 113, \(location))", #"invalid escape \q in a string"#, 3, 15),
            (
                "unescapedControlCharacterInString(ascii: 9, \(location))",
                #"control character U+0009 in a string (write it as an escape such as \t or \u0009)"#, 3, 15
            ),
            (
                #"numberIsNotRepresentableInSwift(parsed: "1e400")"#,
                "the number 1e400 does not fit a 64-bit floating-point value", nil, nil
            ),
            ("unexpectedCharacter(context: nil, ascii: 120, \(location))", "unexpected character 'x'", 3, 15),
            ("unexpectedEndOfFile", "unexpected end of the document", nil, nil),
            ("unterminatedBlockComment", "unterminated block comment", nil, nil),
            // Sentences are not enum cases: kept as they are.
            ("The given data was not valid JSON.", "The given data was not valid JSON.", nil, nil),
            ("line 2, column 3: x", "line 2, column 3: x", nil, nil),
        ]
        for (description, message, line, column) in rows {
            let words = FoundationJSONErrorText.words(for: description)
            XCTAssertEqual(words.message, message, description)
            XCTAssertEqual(words.line, line, description)
            XCTAssertEqual(words.column, column, description)
        }
    }
}
