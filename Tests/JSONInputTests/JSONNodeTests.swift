import Foundation
import JSONInput
import XCTest

final class JSONNodeTests: XCTestCase {
    /// A value that is a name or a number, read as a `JSONNode` so the model words its own error.
    private struct Code: Decodable, Equatable {
        var value: JSONNode?
        var extra: JSONNode?

        enum CodingKeys: String, CodingKey, CaseIterable { case value, extra }
    }

    func testAnyValueDecodesWholeUnderTheStrictDecoder() throws {
        let json = #"{"value": {"a": [1, "x", null, true, 1.5, 18446744073709551615]}, "extra": "e"}"#
        let decoded = try StrictJSONDecoder().decode(Code.self, from: Array(json.utf8))
        XCTAssertEqual(
            decoded.value,
            .object([
                "a": .array([
                    .int(1), .string("x"), .null, .bool(true), .double(1.5), .uint(18_446_744_073_709_551_615),
                ])
            ]),
            "keys inside the value are not refused as unknown")
        XCTAssertEqual(decoded.extra, .string("e"))
    }

    func testUnknownKeysBesideTheValueAreStillRefused() {
        XCTAssertThrowsError(try StrictJSONDecoder().decode(Code.self, from: Array(#"{"value": 2, "valeu": 3}"#.utf8)))
        {
            XCTAssertEqual(
                ($0 as? InputError)?.description,
                #"valeu: unknown key (did you mean "value"?); valid keys here: value, extra"#)
        }
    }

    func testAnyValueDecodesUnderFoundation() throws {
        let decoded = try JSONDecoder().decode(Code.self, from: Data(#"{"value": [false, "s", 7]}"#.utf8))
        XCTAssertEqual(decoded.value, .array([.bool(false), .string("s"), .int(7)]))
    }

    func testModelsDecodeFromAParsedValue() throws {
        let node = JSONNode.object(["value": .int(3)])
        XCTAssertEqual(try StrictJSONDecoder().decode(Code.self, from: node).value, .int(3))
        XCTAssertThrowsError(try StrictJSONDecoder().decode(Code.self, from: .object(["vlaue": .int(3)]))) {
            XCTAssertEqual(
                ($0 as? InputError)?.prefixed("faults[2]").description,
                #"faults[2].vlaue: unknown key (did you mean "value"?); valid keys here: value, extra"#)
        }
        XCTAssertThrowsError(try StrictJSONDecoder().decode(Code.self, from: .array([]))) {
            XCTAssertEqual(($0 as? InputError)?.description, "expected an object, got an array")
        }
    }

    func testRenderedAsInMessages() {
        XCTAssertEqual(JSONNode.int(-1).rendered, "-1")
        XCTAssertEqual(JSONNode.double(1.5).rendered, "1.5")
        XCTAssertEqual(JSONNode.string("100").rendered, #""100""#)
        XCTAssertEqual(JSONNode.bool(true).rendered, "true")
        XCTAssertEqual(JSONNode.null.rendered, "null")
        XCTAssertEqual(JSONNode.array([]).rendered, "an array")
        XCTAssertEqual(JSONNode.object([:]).rendered, "an object")
    }

    /// Read from bytes, numbers come out as records write payloads: beyond Int64, a Double.
    func testDecodingBytesReadsUnsignedRangeAsDouble() throws {
        XCTAssertEqual(
            try JSONNode(decoding: Array(#"{"a":[18446744073709551615,-1,1.0]}"#.utf8)),
            ["a": .array([.double(Double(UInt64.max)), .int(-1), .int(1)])])
        XCTAssertEqual(try JSONNode(decoding: Array("9223372036854775807".utf8)), .int(.max))
    }
}
