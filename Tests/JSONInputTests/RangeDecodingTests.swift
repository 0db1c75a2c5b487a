import Foundation
import JSONInput
import XCTest

final class RangeDecodingTests: XCTestCase {
    private struct Limits: Decodable {
        var port: Int
        var workers: Int?
        var streams: UInt32?
        var drain: Double?
        var ratio: Float?

        enum CodingKeys: String, CodingKey { case port, workers, streams, drain, ratio }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            port = try container.decode(Int.self, forKey: .port, in: 1...65535)
            workers = try container.decodeIfPresent(Int.self, forKey: .workers, in: 0...Int.max)
            streams = try container.decodeIfPresent(UInt32.self, forKey: .streams, in: 1...UInt32.max)
            drain = try container.decodeIfPresent(Double.self, forKey: .drain, in: 0...3600)
            ratio = try container.decodeIfPresent(Float.self, forKey: .ratio, in: 0...1)
        }
    }

    private func outcome(_ json: String) -> String {
        do {
            let limits = try StrictJSONDecoder().decode(Limits.self, from: Array(json.utf8))
            return
                "ok \(limits.port) \(limits.workers.map(String.init) ?? "-") \(limits.streams.map(String.init) ?? "-") "
                + "\(limits.drain.map { "\($0)" } ?? "-") \(limits.ratio.map { "\($0)" } ?? "-")"
        } catch {
            return error.description
        }
    }

    func testRangesAreCheckedWithOneWording() {
        let cases: [(String, String)] = [
            (#"{"port": 2197}"#, "ok 2197 - - - -"),
            (#"{"port": 1}"#, "ok 1 - - - -"),
            (#"{"port": 65535}"#, "ok 65535 - - - -"),
            (#"{"port": 2197.0}"#, "ok 2197 - - - -"),
            (#"{"port": 0}"#, "port: expected an integer from 1 to 65535, got 0"),
            (#"{"port": 65536}"#, "port: expected an integer from 1 to 65535, got 65536"),
            (#"{"port": "x"}"#, #"port: expected an integer from 1 to 65535, got "x""#),
            (#"{"port": 80.5}"#, "port: expected an integer from 1 to 65535, got 80.5"),
            (#"{"port": null}"#, "port: expected an integer from 1 to 65535, got null"),
            (#"{"port": [80]}"#, "port: expected an integer from 1 to 65535, got an array"),
            (#"{"port": 99999999999999999999}"#, "port: expected an integer from 1 to 65535, got 1e+20"),
            (#"{}"#, "port: missing; expected an integer from 1 to 65535"),
            // `CodingKeys` not `CaseIterable`: the valid keys are those asked for before the error.
            (#"{"prt": 1}"#, #"prt: unknown key (did you mean "port"?); valid keys here: port"#),
            (
                #"{"port": 1, "drian": 1}"#,
                #"drian: unknown key (did you mean "drain"?); valid keys here: port, workers, streams, drain, ratio"#
            ),
            // Open ranges, and null or absent for the optional ones.
            (#"{"port": 1, "workers": -1}"#, "workers: expected an integer of at least 0, got -1"),
            (#"{"port": 1, "workers": null, "streams": null, "drain": null}"#, "ok 1 - - - -"),
            (#"{"port": 1, "streams": 0}"#, "streams: expected an integer of at least 1, got 0"),
            (#"{"port": 1, "streams": 4294967296}"#, "streams: expected an integer of at least 1, got 4294967296"),
            (#"{"port": 1, "streams": 4294967295}"#, "ok 1 - 4294967295 - -"),
            // Numbers.
            (#"{"port": 1, "drain": 2.5}"#, "ok 1 - - 2.5 -"),
            (#"{"port": 1, "drain": 3600}"#, "ok 1 - - 3600.0 -"),
            (#"{"port": 1, "drain": 3600.5}"#, "drain: expected a number from 0 to 3600, got 3600.5"),
            (#"{"port": 1, "drain": -1e-9}"#, "drain: expected a number from 0 to 3600, got -1e-09"),
            (#"{"port": 1, "drain": "30"}"#, #"drain: expected a number from 0 to 3600, got "30""#),
            (#"{"port": 1, "ratio": 1.5}"#, "ratio: expected a number from 0 to 1, got 1.5"),
            (#"{"port": 1, "ratio": 0.25}"#, "ok 1 - - - 0.25"),
        ]
        for (json, expected) in cases {
            XCTAssertEqual(outcome(json), expected, json)
        }
    }

    func testNonFiniteNumbersAreOutOfEveryFiniteRange() {
        // JSON5 admits NaN and Infinity; a closed finite range refuses them.
        for literal in ["NaN", "Infinity", "-Infinity"] {
            let json = #"{"port": 1, "drain": \#(literal)}"#
            XCTAssertThrowsError(
                try StrictJSONDecoder(options: .init(syntax: .json5)).decode(Limits.self, from: Array(json.utf8)),
                literal
            ) { error in
                XCTAssertEqual((error as? InputError)?.path, "drain")
                XCTAssertTrue(
                    (error as? InputError)?.message.hasPrefix("expected a number from 0 to 3600, got ") ?? false)
            }
        }
    }

    func testSingleValueRanges() throws {
        struct Percent: Decodable {
            var value: Int
            init(from decoder: any Decoder) throws {
                value = try decoder.singleValueContainer().decode(Int.self, in: 0...100)
            }
        }
        XCTAssertEqual(
            try StrictJSONDecoder().decode([Percent].self, from: Array("[0, 100]".utf8)).map(\.value), [0, 100])
        XCTAssertThrowsError(try StrictJSONDecoder().decode([Percent].self, from: Array("[0, 101]".utf8))) { error in
            XCTAssertEqual((error as? InputError)?.description, "[1]: expected an integer from 0 to 100, got 101")
        }
    }

    func testRangesHoldUnderFoundationsDecoderToo() {
        XCTAssertThrowsError(try JSONDecoder().decode(Limits.self, from: Data(#"{"port": 70000}"#.utf8))) { error in
            XCTAssertEqual((error as? InputError)?.description, "port: expected an integer from 1 to 65535, got 70000")
        }
        XCTAssertEqual(try JSONDecoder().decode(Limits.self, from: Data(#"{"port": 80}"#.utf8)).port, 80)
    }

    func testWording() {
        XCTAssertEqual(InputWording.integer(in: 1...65535), "an integer from 1 to 65535")
        XCTAssertEqual(InputWording.integer(in: 2...Int.max), "an integer of at least 2")
        XCTAssertEqual(InputWording.integer(in: Int.min...9), "an integer of at most 9")
        XCTAssertEqual(InputWording.integer(in: Int.min...Int.max), "an integer")
        XCTAssertEqual(InputWording.integer(UInt8.self), "an integer from 0 to 255")
        XCTAssertEqual(InputWording.integer(Int64.self), "an integer")
        XCTAssertEqual(InputWording.number(in: 0.0...3600), "a number from 0 to 3600")
        XCTAssertEqual(InputWording.number(in: -1e10...1e10), "a number from -10000000000 to 10000000000")
        XCTAssertEqual(InputWording.number(in: 0.5...1e30), "a number from 0.5 to 1e+30")
        XCTAssertEqual(String?.inputExpectation, "a string or null")
        XCTAssertEqual([Int].inputExpectation, "an array")
    }
}
