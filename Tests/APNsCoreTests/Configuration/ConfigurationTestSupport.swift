import Foundation
import XCTest
@testable import APNsCore

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
            XCTAssertTrue(actual.contains(message), "\(actual.debugDescription) does not contain \(message.debugDescription)",
                          file: file, line: line)
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
