import CNGHTTP2
import XCTest

@testable import HTTP2Transport

/// `ResponseEncoder`: the nghttp2 name/value pairs a response is submitted with.
final class ResponseEncoderTests: XCTestCase {
    /// The pairs as (name, value) strings, and whether every pair has no flags.
    private func encode(_ response: HTTP2Response) -> (fields: [HeaderField], flagsNone: Bool) {
        ResponseEncoder.withFields(of: response) { pairs, count in
            let fields = (0..<count).map { index -> HeaderField in
                let pair = pairs[index]
                return HeaderField(
                    name: String(decoding: UnsafeBufferPointer(start: pair.name, count: pair.namelen), as: UTF8.self),
                    value: String(decoding: UnsafeBufferPointer(start: pair.value, count: pair.valuelen), as: UTF8.self)
                )
            }
            return (fields, (0..<count).allSatisfy { pairs[$0].flags == UInt8(NGHTTP2_NV_FLAG_NONE.rawValue) })
        }
    }

    func testCases() {
        var uuids = UUIDHeaderFields()
        uuids.append(
            UUIDHeaderField(name: "apns-id", high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210, uppercase: true))
        uuids.append(UUIDHeaderField(name: "apns-unique-id", high: 0, low: 0xFFFF_FFFF_FFFF_FFFF, uppercase: false))
        let cases: [(name: String, response: HTTP2Response, expected: [HeaderField])] = [
            ("status only", HTTP2Response(status: 200), [HeaderField(name: ":status", value: "200")]),
            ("one digit", HTTP2Response(status: 0), [HeaderField(name: ":status", value: "0")]),
            ("many digits", HTTP2Response(status: 1_234_567), [HeaderField(name: ":status", value: "1234567")]),
            (
                "a negative status keeps its sign", HTTP2Response(status: -42),
                [HeaderField(name: ":status", value: "-42")]
            ),
            (
                "fields in order, multi-byte UTF-8 as bytes",
                HTTP2Response(
                    status: 400,
                    headers: [
                        HeaderField(name: "content-type", value: "application/json"),
                        HeaderField(name: "x-é", value: "ü€"), HeaderField(name: "x-empty", value: ""),
                    ]),
                [
                    HeaderField(name: ":status", value: "400"),
                    HeaderField(name: "content-type", value: "application/json"),
                    HeaderField(name: "x-é", value: "ü€"), HeaderField(name: "x-empty", value: ""),
                ]
            ),
            (
                "UUID fields after the others, spelled",
                HTTP2Response(status: 200, headers: [HeaderField(name: "x-a", value: "1")], uuidHeaders: uuids),
                [
                    HeaderField(name: ":status", value: "200"), HeaderField(name: "x-a", value: "1"),
                    HeaderField(name: "apns-id", value: "01234567-89AB-CDEF-FEDC-BA9876543210"),
                    HeaderField(name: "apns-unique-id", value: "00000000-0000-0000-ffff-ffffffffffff"),
                ]
            ),
            (
                "a body changes nothing here", HTTP2Response(status: 200, body: [1, 2, 3]),
                [HeaderField(name: ":status", value: "200")]
            ),
        ]
        for testCase in cases {
            let (fields, flagsNone) = encode(testCase.response)
            XCTAssertEqual(fields, testCase.expected, testCase.name)
            XCTAssertTrue(flagsNone, "\(testCase.name): no flags (the dynamic table is off for responses anyway)")
        }
    }

    func testDecimalLength() {
        for (value, length) in [(UInt(0), 1), (9, 1), (10, 2), (99, 2), (100, 3), (UInt.max, 20)] {
            XCTAssertEqual(ResponseEncoder.decimalLength(of: value), length, "\(value)")
        }
    }
}
