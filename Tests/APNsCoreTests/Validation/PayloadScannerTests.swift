import XCTest

@testable import APNsCore

/// `PayloadScanner` (yajl) must give exactly what `JSONSerialization` gives: the same verdict
/// (object or not) and the same `PayloadFacts`, or hand the body to Foundation. A differential
/// test over hand-picked bodies where the two parsers are known to differ, and over random
/// mutations of valid payloads.
final class PayloadScannerTests: XCTestCase {
    /// One scratch (and so one yajl handle, reused) for every body a test checks, in turn, as a
    /// connection's memo parses its pushes.
    private let scratch = PayloadScratch()

    /// Both paths of `PayloadInspector` on one body: the answer must be the same; and the same
    /// with the test's reused scratch.
    private func assertAgrees(_ body: [UInt8], _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        let foundation = PayloadInspector.inspectWithFoundation(body)
        let combined = PayloadInspector.inspect(body)
        switch (combined, PayloadInspector.inspect(body, scratch: scratch)) {
        case (.object(var a), .object(var b)):
            // Foundation's dictionary order (bodies it decides) may differ from one parse to the next.
            a.unknownApsKeys.sort()
            b.unknownApsKeys.sort()
            XCTAssertEqual(b, a, "\(label): with the scratch", file: file, line: line)
        case (.invalid(let a), .invalid(let b)):
            XCTAssertEqual(b, a, "\(label): with the scratch", file: file, line: line)
        case (let a, let b): XCTFail("\(label): \(a) without the scratch, \(b) with it", file: file, line: line)
        }
        switch (foundation, combined) {
        case (.object(var expected), .object(var actual)):
            expected.unknownApsKeys.sort()
            actual.unknownApsKeys.sort()
            XCTAssertEqual(actual, expected, label, file: file, line: line)
        case (.invalid(let expected), .invalid(let actual)):
            XCTAssertEqual(actual, expected, label, file: file, line: line)
        default:
            XCTFail("\(label): Foundation says \(foundation), the scanner path \(combined)", file: file, line: line)
        }
    }

    /// Bodies the scanner must decide itself (so the fast path is really taken), with their facts.
    func testScannerDecidesOrdinaryPayloads() {
        let rows: [(String, PayloadFacts.Kind, Bool)] = [
            (#"{"aps":{"alert":"hello"}}"#, .string, false),
            (
                #"{"aps":{"alert":{"title":"T","body":"B"},"badge":3,"sound":"default"},"k":[1,2.5,true,null]}"#,
                .dictionary, false
            ),
            (#"{"aps":{"content-available":1}}"#, .absent, true),
            (#"{"aps":{"content-available":1.0}}"#, .absent, true),
            (#"{"aps":{"alert":"é 🙂 \u00e9"}}"#, .string, false),
        ]
        for (body, alert, contentAvailableOnly) in rows {
            let bytes = Array(body.utf8)
            let facts = bytes.withUnsafeBufferPointer(PayloadScanner.facts(of:))
            XCTAssertNotNil(facts, body)
            XCTAssertEqual(facts?.alert, alert, body)
            XCTAssertEqual(facts?.isContentAvailableOnly, contentAvailableOnly, body)
            assertAgrees(bytes, body)
        }
    }

    /// Where yajl and Foundation differ: the scanner must step aside (nil), and the combined
    /// path must give Foundation's answer.
    func testScannerStepsAsideWhereTheParsersDiffer() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let rows: [(String, [UInt8])] = [
            ("number overflowing a Double", Array(#"{"a":1e400}"#.utf8)),
            ("exponent", Array(#"{"aps":{"content-available":1e0}}"#.utf8)),
            ("400-digit integer", Array(("{\"a\":1" + String(repeating: "0", count: 400) + "}").utf8)),
            ("lone high surrogate escape", Array(#"{"a":"\ud800"}"#.utf8)),
            ("lone low surrogate escape", Array(#"{"a":"\uDC00"}"#.utf8)),
            ("surrogate pair escape", Array(#"{"a":"\ud83d\ude00"}"#.utf8)),
            ("form feed between tokens", Array("{\"a\"\u{0C}:1}".utf8)),
            ("vertical tab between tokens", Array("{\"a\":1\u{0B}}".utf8)),
            ("600 levels of nesting", Array("{\"a\":\(deep)}".utf8)),
            ("encoded surrogate", [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x7D]),
            ("code point above U+10FFFF", [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xF4, 0x90, 0x80, 0x80, 0x22, 0x7D]),
            ("overlong slash", [0x7B, 0x22, 0xC0, 0xAF, 0x22, 0x3A, 0x31, 0x7D]),
            ("trailing comma (Foundation accepts)", Array(#"{"a":1,}"#.utf8)),
            ("byte-order mark (Foundation accepts)", [0xEF, 0xBB, 0xBF] + Array("{}".utf8)),
            ("top-level array", Array("[1]".utf8)),
            ("top-level string", Array(#""aps""#.utf8)),
            ("truncated", Array(#"{"aps":"#.utf8)),
        ]
        for (label, body) in rows {
            XCTAssertNil(body.withUnsafeBufferPointer(PayloadScanner.facts(of:)), label)
            assertAgrees(body, label)
        }
    }

    /// The eight-byte step of the preflight stops at every byte it must look at, wherever it is.
    func testPlainWordsAreTheOnesWithoutSpecialBytes() {
        let plain = Array(#"{"a":"bc"#.utf8)
        func word(_ bytes: [UInt8]) -> UInt64 {
            bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        }
        XCTAssertTrue(PayloadScanner.isPlain(word(plain)))
        XCTAssertTrue(PayloadScanner.isPlain(word(Array("        ".utf8))))
        XCTAssertTrue(
            PayloadScanner.isPlain(word([0x0A, 0x0D, 0x09, 0x5B, 0x5D, 0x7F, 0x0A, 0x0D])), "newlines, tabs, DEL")
        for position in 0..<8 {
            for special: UInt8 in [0x0B, 0x0C, UInt8(ascii: "\\"), 0x80, 0xC3, 0xFF] {
                var bytes = plain
                bytes[position] = special
                XCTAssertFalse(PayloadScanner.isPlain(word(bytes)), "byte \(special) at \(position)")
            }
        }
    }

    /// Duplicate keys: Foundation's dictionary keeps the last value; so must the scanner.
    func testDuplicateKeysKeepTheLastValue() {
        let rows = [
            #"{"aps":{"alert":"x","alert":1}}"#,
            #"{"aps":{"content-available":1,"content-available":"1"}}"#,
            #"{"aps":{"content-available":"1","content-available":1}}"#,
            #"{"aps":{"alert":"x"},"aps":{"content-available":1}}"#,
            #"{"aps":{"foo":1,"foo":2,"bar":3}}"#,
            #"{"aps":1,"aps":{"badge":2}}"#,
        ]
        for body in rows {
            XCTAssertNotNil(Array(body.utf8).withUnsafeBufferPointer(PayloadScanner.facts(of:)), body)
            assertAgrees(Array(body.utf8), body)
        }
    }

    /// 20,000 random mutations (replace, insert, delete 1-4 bytes) of a payload that uses every
    /// JSON form; the same seed every run.
    func testRandomMutationsAgreeWithFoundation() {
        let seed = Array(
            #"{"aps":{"alert":{"title":"T","body":"B"},"badge":3,"sound":"d","content-available":1,"x-y":[]},"k":[1,2.5,-300,true,false,null,"\u00e9\n\"é"]}"#
                .utf8)
        let alphabet =
            Array(#"{}[]:,"\ u0123456789abcdefABCDEF.eE+-truefalsenul"#.utf8)
            + [0x00, 0x01, 0x0B, 0x0C, 0x7F, 0x80, 0xC3, 0xA9, 0xED, 0xFF]
        var random = Xorshift(state: 0x9E37_79B9_7F4A_7C15)
        var decided = 0
        for round in 0..<20_000 {
            var body = seed
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let index = Int(random.next() % UInt64(body.count))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0: body[index] = byte
                case 1: body.insert(byte, at: index)
                default: if body.count > 1 { body.remove(at: index) }
                }
            }
            if body.withUnsafeBufferPointer(PayloadScanner.facts(of:)) != nil { decided += 1 }
            assertAgrees(body, "mutation \(round): \(String(decoding: body, as: UTF8.self).debugDescription)")
        }
        XCTAssertGreaterThan(decided, 1_000, "the scanner decided too few bodies for the test to mean anything")
    }

    /// A seeded generator of the test's own (xorshift64), so every run mutates alike.
    private struct Xorshift {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }
}
