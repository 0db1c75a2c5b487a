import Foundation
import XCTest

@testable import APNsCore
@testable import Configuration

/// Parses a configuration document written as a string.
func parseConfiguration(_ text: String) throws(ConfigurationError) -> Configuration {
    try ConfigurationFile.parse(Array(text.utf8))
}

/// One error-table row: an input and the message it must produce (exactly, or as a substring).
struct ErrorRow<Input> {
    var input: Input
    var message: String
    var exact: Bool
    var line: UInt

    init(_ input: Input, _ message: String, exact: Bool = true, line: UInt = #line) {
        self.input = input
        self.message = message
        self.exact = exact
        self.line = line
    }

    func check(_ actual: String, file: StaticString = #filePath) {
        if exact {
            XCTAssertEqual(actual, message, "input: \(input)", file: file, line: line)
        } else {
            XCTAssertTrue(
                actual.contains(message), "\(actual.debugDescription) does not contain \(message.debugDescription)",
                file: file, line: line)
        }
    }
}

/// Checks that each row's arguments fail to parse with the row's message, pointing at `--help`
/// or not as `suggestsHelp` says, and printed as `mock-apns: <message>` plus the help line when
/// it points there.
func assertCommandLineErrors(_ rows: [ErrorRow<[String]>], suggestsHelp: Bool, file: StaticString = #filePath) {
    let help = suggestsHelp ? "\nRun 'mock-apns --help' for usage." : ""
    for row in rows {
        do {
            let command = try CommandLineParser.parse(row.input)
            XCTFail("\(row.input) parsed as \(command)", file: file, line: row.line)
        } catch {
            row.check(error.message, file: file)
            XCTAssertEqual(error.suggestsHelp, suggestsHelp, "\(row.input)", file: file, line: row.line)
            XCTAssertEqual(error.description, "mock-apns: \(error.message)\(help)", file: file, line: row.line)
        }
    }
}

/// A scratch directory removed when the test ends.
func makeTemporaryDirectory(_ test: XCTestCase) throws -> URL {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("mockapns-config-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
    return directory
}
