import XCTest
@testable import APNsCore

final class ControlJSONTests: XCTestCase {
    private func roundTrip(_ text: String) -> String? {
        ControlJSON.parse(Array(text.utf8)).map { String(decoding: $0.encoded(), as: UTF8.self) }
    }

    func testParsesValuesKeepingOrderAndNumberText() {
        XCTAssertEqual(ControlJSON.parse(Array(#" {"x":[1,2.5,"s",false,null]} "#.utf8)),
                       ["x": .array([.number("1"), .number("2.5"), .string("s"), .bool(false), .null])] as ControlJSON)
        let rows: [(String, String)] = [
            (#"{"b":1,"a":{"d":2,"c":3}}"#, #"{"b":1,"a":{"d":2,"c":3}}"#),   // order as sent
            (#"{ "aps" : { "alert" : "hi" } }"#, #"{"aps":{"alert":"hi"}}"#),
            ("[1.0, -0, 1e400, 2E-3]", "[1.0,-0,1e400,2E-3]"),                // numbers verbatim
            (#""a\/b\u00e9\ud83d\ude00\n""#, "\"a/bé😀\\n\""),
            ("true", "true"), ("null", "null"), ("[]", "[]"), ("{}", "{}"),
            (#"{"k":1,"k":2}"#, #"{"k":1,"k":2}"#),
        ]
        for (input, output) in rows { XCTAssertEqual(roundTrip(input), output, input) }
    }

    func testRejectsWhatIsNotJSON() {
        let bad = ["", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", ".5", "1e", "tru", "nul", "'a'",
                   "{a:1}", "\"tab\there\"", #""\x""#, #""\ud83d""#, #""\ud83dx""#, "[1] 2", "NaN",
                   "\"\u{7}\"", "{\"a\" 1}"]
        for input in bad { XCTAssertNil(ControlJSON.parse(Array(input.utf8)), input) }
        XCTAssertNil(ControlJSON.parse([0x22, 0xFF, 0x22]), "invalid UTF-8")
    }

    func testDeepNestingIsRefusedNotACrash() {
        let depth = ControlJSONParser.maxDepth
        XCTAssertNotNil(ControlJSON.parse(Array(String(repeating: "[", count: depth - 1).utf8)
                                          + Array(String(repeating: "]", count: depth - 1).utf8)))
        XCTAssertNil(ControlJSON.parse(Array(String(repeating: "[", count: 100_000).utf8)))
    }

    func testEncoderSortsKeysAndEscapes() {
        let value = ControlJSON.sortedObject([
            "b": .string("q\"u/o\\te\n\u{1}é"), "a": .array([.int(-1), .uint(UInt64.max), .null, .bool(true)]),
            "c": .double(0.1), "d": .double(3), "e": .double(.infinity),
        ])
        XCTAssertEqual(String(decoding: value.encoded(), as: UTF8.self),
                       #"{"a":[-1,18446744073709551615,null,true],"b":"q\"u/o\\te\n\u0001é","c":0.1,"d":3,"e":null}"#)
        XCTAssertEqual(value["c"], .double(0.1))
        XCTAssertNil(value["z"])
    }
}
