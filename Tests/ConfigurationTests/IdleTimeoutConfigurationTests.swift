import XCTest

@testable import APNsCore
@testable import Configuration

final class IdleTimeoutConfigurationTests: XCTestCase {
    func testDefaultsKeepIdleConnections() {
        XCTAssertNil(Configuration().idleTimeoutSeconds)
        XCTAssertEqual(Configuration().idleAction, .reset)
    }

    func testFileAndFlagsSetTheIdleTimeout() throws {
        let file = try parseConfiguration(#"{"idleTimeoutSeconds": 30, "idleAction": "goaway"}"#)
        XCTAssertEqual(file.idleTimeoutSeconds, 30)
        XCTAssertEqual(file.idleAction, .goaway)
        XCTAssertNil(try parseConfiguration(#"{"idleTimeoutSeconds": null}"#).idleTimeoutSeconds)
        guard case .serve(let flags) = try CommandLineParser.parse(["--idle-timeout", "2.5", "--idle-action=goaway"])
        else {
            return XCTFail("expected serve")
        }
        XCTAssertEqual(flags.idleTimeoutSeconds, 2.5)
        XCTAssertEqual(flags.idleAction, .goaway)
    }

    func testIdleActionBlackhole() throws {
        XCTAssertEqual(try parseConfiguration(#"{"idleAction": "blackhole"}"#).idleAction, .blackhole)
        guard
            case .serve(let flags) = try CommandLineParser.parse(["--idle-timeout", "60", "--idle-action", "blackhole"])
        else {
            return XCTFail("expected serve")
        }
        XCTAssertEqual(flags.idleAction, .blackhole)
    }

    func testBadIdleSettingsAreNamed() {
        let rows: [(String, String)] = [
            (#"{"idleTimeoutSeconds": 0}"#, "idleTimeoutSeconds: expected a number of seconds above 0"),
            (#"{"idleTimeoutSeconds": "10"}"#, "idleTimeoutSeconds: expected a number of seconds above 0"),
            (#"{"idleTimeoutSeconds": 1e9}"#, "idleTimeoutSeconds: expected a number of seconds above 0"),
            (#"{"idleAction": "close"}"#, "idleAction"),
        ]
        for (text, expected) in rows {
            XCTAssertThrowsError(try parseConfiguration(text), text) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(text): \(error)")
            }
        }
        for arguments in [["--idle-timeout", "0"], ["--idle-timeout", "soon"], ["--idle-action", "close"]] {
            XCTAssertThrowsError(try CommandLineParser.parse(arguments), "\(arguments)") { error in
                XCTAssertTrue("\(error)".contains(arguments[0]), "\(arguments): \(error)")
            }
        }
        // A flag cannot be null: its message says to leave the flag out instead.
        XCTAssertThrowsError(try CommandLineParser.parse(["--idle-timeout", "0"])) { error in
            XCTAssertFalse("\(error)".contains("null"), "\(error)")
            XCTAssertTrue("\(error)".contains("leave the flag out"), "\(error)")
        }
    }
}
