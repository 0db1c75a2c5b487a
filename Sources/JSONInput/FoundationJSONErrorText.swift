/// Words for the errors Foundation's JSON parser reports as the `description` of its internal
/// error enum (`unexpectedEscapedCharacter(ascii: 113, location: ...SourceLocation(line: 1,
/// column: 15, index: 14))`), so that no message shows Swift's spelling of an enum case: the
/// case's meaning in words, the character or number it names, and its line and column when the
/// description carries them.
public enum FoundationJSONErrorText {
    /// What `description` says, in words, and its 1-based line and column when it names them;
    /// a description of an unknown shape is kept, its case name split into words.
    public static func words(for description: String) -> (message: String, line: Int?, column: Int?) {
        let name = String(description.prefix { $0.isLetter || $0.isNumber })
        // Only an enum case's spelling (`caseName` or `caseName(...)`) is translated; sentences pass.
        let rest = description.dropFirst(name.count)
        guard let first = name.first, first.isLowercase, rest.isEmpty || rest.hasPrefix("(") else {
            return (description, nil, nil)
        }
        let character = integer(after: "ascii: ", in: description).flatMap(Self.character)
        let parsed = quoted(after: "parsed: ", in: description)
        let message: String
        switch name {
        case "unexpectedEscapedCharacter":
            message = "invalid escape \\\(character.map { String($0.dropFirst().dropLast()) } ?? "") in a string"
        case "unescapedControlCharacterInString":
            message = "control character \(character ?? "") in a string (write it as an escape such as \\t or \\u0009)"
        case "unexpectedCharacter":
            message = "unexpected character \(character ?? "")"
        case "numberIsNotRepresentableInSwift":
            message = "the number \(parsed ?? "") does not fit a 64-bit floating-point value"
        case "numberWithLeadingZero": message = "a number with a leading zero"
        case "invalidHexDigitSequence": message = "a \\u escape needs four hexadecimal digits"
        case "invalidSurrogateSequence", "expectedLowSurrogateUTF8SequenceAfterHighSurrogate":
            message = "a \\u escape of a UTF-16 surrogate without its pair"
        case "couldNotCreateUnicodeScalarFromUInt32": message = "a \\u escape that is not a Unicode scalar"
        case "invalidEscapedNullValue": message = "\\u0000 is not allowed in a string"
        case "unexpectedEndOfFile": message = "unexpected end of the document"
        case "tooManyNestedArraysOrDictionaries": message = "too many nested arrays or objects (at most 512)"
        case "cannotConvertInputStringDataToUTF8", "invalidUTF8Sequence": message = "not valid UTF-8"
        default: message = words(ofCaseName: name)
        }
        return (message, integer(after: "line: ", in: description), integer(after: "column: ", in: description))
    }

    /// `unterminatedBlockComment` -> `unterminated block comment`.
    static func words(ofCaseName name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase { out += " " + character.lowercased() } else { out.append(character) }
        }
        return out
    }

    private static func integer(after label: String, in text: String) -> Int? {
        guard let range = text.range(of: label) else { return nil }
        return Int(text[range.upperBound...].prefix(while: \.isNumber))
    }

    private static func quoted(after label: String, in text: String) -> String? {
        guard let range = text.range(of: label + "\"") else { return nil }
        return String(text[range.upperBound...].prefix { $0 != "\"" })
    }

    /// `'q'`, or `U+0009` for a control character.
    private static func character(_ code: Int) -> String? {
        guard let scalar = Unicode.Scalar(code) else { return nil }
        if code < 0x20 || code == 0x7F {
            let hex = String(code, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        return "'\(Character(scalar))'"
    }
}
