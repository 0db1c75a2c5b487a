import Foundation
import JSONInput
import XCTest

final class ISO8601TimestampTests: XCTestCase {
    func testParse() {
        let cases: [(String, Int64?)] = [
            ("1970-01-01T00:00:00Z", 0),
            ("1970-01-01T00:00:00.000Z", 0),
            ("2026-11-30T08:49:03.123Z", 1_796_028_543_123),
            ("2026-11-30T08:49:03Z", 1_796_028_543_000),
            ("2026-11-30T08:49:03.1Z", 1_796_028_543_100),
            ("2026-11-30T08:49:03.12Z", 1_796_028_543_120),
            ("2026-11-30T08:49:03.123999Z", 1_796_028_543_123),  // truncated, not rounded
            ("2026-11-30t08:49:03.123z", 1_796_028_543_123),
            ("2026-11-30 08:49:03.123Z", 1_796_028_543_123),
            ("2026-11-30T09:49:03.123+01:00", 1_796_028_543_123),
            ("2026-11-30T07:19:03.123-0130", 1_796_028_543_123),
            ("2024-02-29T00:00:00Z", 1_709_164_800_000),  // leap year
            ("2016-12-31T23:59:60Z", 1_483_228_800_000),  // a leap second reads as the next second
            ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
            // Malformed or out of range.
            ("2023-02-29T00:00:00Z", nil), ("2026-13-01T00:00:00Z", nil), ("2026-04-31T00:00:00Z", nil),
            ("2026-11-30T24:00:00Z", nil), ("2026-11-30T08:60:00Z", nil), ("2026-11-30T08:49:61Z", nil),
            ("2026-11-30T08:49:03", nil),  // no offset
            ("2026-11-30T08:49:03.Z", nil), ("2026-11-30T08:49Z", nil), ("26-11-30T08:49:03Z", nil),
            ("2026-11-30T08:49:03Z ", nil), ("2026-11-30T08:49:03+24:00", nil), ("", nil), ("now", nil),
            // One rule: before the epoch is refused, however written.
            ("1969-12-31T23:59:59.999Z", nil), ("1970-01-01T00:30:00+01:00", nil), ("0000-01-01T00:00:00Z", nil),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(ISO8601Timestamp.parse(text), expected, text)
            XCTAssertEqual(ISO8601Timestamp(text)?.epochMilliseconds, expected, text)
        }
    }

    func testFormatClampsIntoTheRange() {
        let cases: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00.000Z"),
            (1_796_028_543_123, "2026-11-30T08:49:03.123Z"),
            (1_709_164_800_000, "2024-02-29T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
            (-1, "1970-01-01T00:00:00.000Z"),
            (.min, "1970-01-01T00:00:00.000Z"),
            (253_402_300_800_000, "9999-12-31T23:59:59.999Z"),
            (.max, "9999-12-31T23:59:59.999Z"),
        ]
        for (milliseconds, expected) in cases {
            XCTAssertEqual(ISO8601Timestamp.format(epochMilliseconds: milliseconds), expected, "\(milliseconds)")
        }
        let seconds: [(Double, String)] = [
            (1_796_028_543.1239, "2026-11-30T08:49:03.123Z"), (0.0009, "1970-01-01T00:00:00.000Z"),
            (-5, "1970-01-01T00:00:00.000Z"), (.nan, "1970-01-01T00:00:00.000Z"),
            (.infinity, "9999-12-31T23:59:59.999Z"), (-.infinity, "1970-01-01T00:00:00.000Z"),
            (1e300, "9999-12-31T23:59:59.999Z"),
        ]
        for (value, expected) in seconds {
            XCTAssertEqual(ISO8601Timestamp.format(epochSeconds: value), expected, "\(value)")
        }
    }

    func testFormatAndParseRoundTrip() {
        var milliseconds: Int64 = 0
        while milliseconds <= ISO8601Timestamp.range.upperBound {
            let text = ISO8601Timestamp.format(epochMilliseconds: milliseconds)
            XCTAssertEqual(ISO8601Timestamp.parse(text), milliseconds, text)
            milliseconds += 7_777_777_777_777  // about every 246 years, on odd milliseconds
        }
        XCTAssertNil(ISO8601Timestamp(epochMilliseconds: -1))
        XCTAssertNil(ISO8601Timestamp(epochMilliseconds: ISO8601Timestamp.range.upperBound + 1))
    }

    func testClampingInitializerKeepsInsideAndClampsOutside() {
        XCTAssertEqual(ISO8601Timestamp(clamping: 1_796_028_543_123).epochMilliseconds, 1_796_028_543_123)
        XCTAssertEqual(ISO8601Timestamp(clamping: -1).epochMilliseconds, 0)
        XCTAssertEqual(ISO8601Timestamp(clamping: .max).epochMilliseconds, ISO8601Timestamp.range.upperBound)
    }

    private struct Device: Decodable {
        var unregisteredAt: ISO8601Timestamp?
    }

    func testDecodesBothFormsWithOneRule() throws {
        let cases: [(String, String)] = [
            (#""2026-11-30T08:49:03.123Z""#, "1796028543123"),
            (#""2026-11-30T08:49:03Z""#, "1796028543000"),
            ("1796028543123", "1796028543123"),
            ("1.796028543123e12", "1796028543123"),
            ("0", "0"),
            ("-1", "unregisteredAt: expected \(ISO8601Timestamp.inputExpectation), got -1"),
            ("253402300800000", "unregisteredAt: expected \(ISO8601Timestamp.inputExpectation), got 253402300800000"),
            ("1.5", "unregisteredAt: expected \(ISO8601Timestamp.inputExpectation), got 1.5"),
            (
                #""1969-12-31T23:59:59Z""#,
                #"unregisteredAt: expected \#(ISO8601Timestamp.inputExpectation), got "1969-12-31T23:59:59Z""#
            ),
            (#""yesterday""#, #"unregisteredAt: expected \#(ISO8601Timestamp.inputExpectation), got "yesterday""#),
            ("true", "unregisteredAt: expected \(ISO8601Timestamp.inputExpectation), got true"),
            ("null", "absent"),
        ]
        for (value, expected) in cases {
            let json = #"{"unregisteredAt": \#(value)}"#
            let outcome: String
            do {
                outcome =
                    try StrictJSONDecoder().decode(Device.self, from: Array(json.utf8)).unregisteredAt
                    .map { String($0.epochMilliseconds) } ?? "absent"
            } catch {
                outcome = error.description
            }
            XCTAssertEqual(outcome, expected, value)
        }
    }

    func testEncodesTheString() throws {
        let data = try JSONEncoder().encode([ISO8601Timestamp(epochMilliseconds: 1_796_028_543_123)])
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"["2026-11-30T08:49:03.123Z"]"#)
    }
}
