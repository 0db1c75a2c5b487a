import JSONInput
import XCTest

@testable import JSONSupport

final class JSONNodeAnswerTests: XCTestCase {
    private func parse(_ text: String) -> JSONNode? {
        try? JSONNode(decoding: Array(text.utf8))
    }

    private func encoded(_ value: JSONNode) -> String {
        String(decoding: ControlResponse(status: 200, json: value).body, as: UTF8.self)
    }

    private func roundTrip(_ text: String) -> String? {
        parse(text).map(encoded)
    }

    func testParsesEveryTypeKeepingBoolsApartFromNumbers() {
        XCTAssertEqual(
            parse(#" {"x":[1,2.5,"s",false,null,true,0,-3]} "#),
            ["x": .array([.int(1), .double(2.5), .string("s"), .bool(false), .null, .bool(true), .int(0), .int(-3)])])
    }

    func testRoundTripSortsKeysAndNormalisesNumbers() {
        let rows: [(String, String)] = [
            (#"{"b":1,"a":{"d":2,"c":3}}"#, #"{"a":{"c":3,"d":2},"b":1}"#),
            (#"{ "aps" : { "alert" : "hi" } }"#, #"{"aps":{"alert":"hi"}}"#),
            ("[1.0, -0, 2E-3, 1e3, 1.5, 9223372036854775807]", "[1,0,0.002,1000,1.5,9223372036854775807]"),
            (#""a\/b\u00e9\ud83d\ude00\n""#, "\"a/bé😀\\n\""),
            ("true", "true"), ("null", "null"), ("[]", "[]"), ("{}", "{}"),
            (#"{"k":1,"k":2}"#, #"{"k":1}"#),  // a repeated key keeps its first value
        ]
        for (input, output) in rows { XCTAssertEqual(roundTrip(input), output, input) }
    }

    func testRejectsWhatIsNotJSON() {
        // Foundation's reader accepts trailing commas ("[1,]"), so they are not listed.
        let bad = [
            "", " ", "{", "01", "1.", "-", ".5", "1e", "tru", "nul", "'a'", "1e400",
            "{a:1}", "\"tab\there\"", #""\x""#, #""\ud83d""#, #""\ud83dx""#, "[1] 2", "NaN",
            "\"\u{7}\"", "{\"a\" 1}", #"{"a":[1,01]}"#,
        ]
        for input in bad { XCTAssertNil(parse(input), input) }
        XCTAssertNil(try? JSONNode(decoding: [0x22, 0xFF, 0x22]), "invalid UTF-8")
    }

    func testDeepNestingIsRefusedNotACrash() {
        XCTAssertNotNil(parse(String(repeating: "[", count: 500) + String(repeating: "]", count: 500)))
        XCTAssertNil(parse(String(repeating: "[", count: 100_000)))
        XCTAssertNil(parse(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)))
    }

    func testEncoderSortsKeysAndEscapes() {
        let value: JSONNode = [
            "b": .string("q\"u/o\\te\n\u{1}é"), "a": .array([.int(-1), .uint(UInt64.max), .null, .bool(true)]),
            "c": .double(0.1), "d": .double(3), "e": .double(.infinity),
        ]
        XCTAssertEqual(
            encoded(value),
            #"{"a":[-1,18446744073709551615,null,true],"b":"q\"u/o\\te\n\u0001é","c":0.1,"d":3,"e":null}"#)
    }
}
