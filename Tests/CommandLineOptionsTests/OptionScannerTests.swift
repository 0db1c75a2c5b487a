import CommandLineOptions
import XCTest

/// The one option scanner, in each of the spellings its commands choose.
final class OptionScannerTests: XCTestCase {
    private let options = [
        OptionScanner.Option(name: "--count", value: "N"), OptionScanner.Option(name: "--flag", value: nil),
        OptionScanner.Option(name: "--header", value: "H", repeatable: true),
    ]

    func testValuesFlagsAndPositionals() throws {
        let scanner = OptionScanner(options: options, takesPositional: true)
        let scanned = try scanner.scan(["--count", "-4", "p1", "--header=a", "--flag", "--header", "b", "--", "--x"])
        XCTAssertEqual(scanned.values["--count"], ["-4"])
        XCTAssertEqual(scanned.values["--flag"], [""])
        XCTAssertEqual(scanned.values["--header"], ["a", "b"])
        XCTAssertEqual(scanned.positional, ["p1", "--x"])
    }

    func testFailuresInArgumentOrder() {
        let scanner = OptionScanner(options: options, takesPositional: false)
        let cases: [([String], OptionScanner.Failure)] = [
            (["--nope"], .unknownOption("--nope")),
            (["--nope=1"], .unknownOption("--nope")),
            (["-k"], .unexpectedArgument("-k")),
            (["extra"], .unexpectedArgument("extra")),
            (["--count", "1", "--count=2"], .repeated("--count")),
            (["--count"], .missingValue("--count", placeholder: "N")),
            (["--count", "--flag"], .missingValue("--count", placeholder: "N")),
            (["--flag=yes"], .valueForFlag("--flag")),
        ]
        for (arguments, failure) in cases {
            XCTAssertThrowsError(try scanner.scan(arguments), "\(arguments)") {
                XCTAssertEqual($0 as? OptionScanner.Failure, failure, "\(arguments)")
            }
        }
        XCTAssertEqual(OptionScanner.Failure.repeated("--count").message, "--count is given more than once")
        XCTAssertEqual(
            OptionScanner.Failure.missingValue("--count", placeholder: "N").message, "--count needs a value (N)")
    }

    func testSingleDashOptionsAndEmptyValuesAreTheCommandsChoice() throws {
        let strict = OptionScanner(
            options: options, takesPositional: false, optionsStartWith: "-", emptyValuesAllowed: false)
        XCTAssertThrowsError(try strict.scan(["-x"])) {
            XCTAssertEqual($0 as? OptionScanner.Failure, .unknownOption("-x"))
        }
        XCTAssertThrowsError(try strict.scan(["-"])) {
            XCTAssertEqual($0 as? OptionScanner.Failure, .unexpectedArgument("-"))
        }
        for empty in [["--count="], ["--count", ""]] {
            XCTAssertThrowsError(try strict.scan(empty)) {
                XCTAssertEqual($0 as? OptionScanner.Failure, .missingValue("--count", placeholder: "N"))
            }
        }
        let lenient = OptionScanner(options: options, takesPositional: false)
        XCTAssertEqual(try lenient.scan(["--count="]).values["--count"], [""])
    }
}
