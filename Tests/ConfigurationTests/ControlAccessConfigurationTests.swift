import Foundation
import XCTest

@testable import Configuration

/// Who may use the control API, as the command line, the environment and the file set it
/// (README "Security"): allowed names and origins, the token, the insecure flag.
final class ControlAccessConfigurationTests: XCTestCase {
    func control(_ args: [String], environment: [String: String] = [:]) throws -> ControlConfiguration? {
        guard case .serve(let configuration) = try CommandLineParser.parse(args, environment: environment) else {
            XCTFail("not serve")
            return nil
        }
        return configuration.control
    }

    func testFlagsRepeatAndSetTheControlAccess() throws {
        let given = try XCTUnwrap(
            try control([
                "--control-allow-host", "Mock-APNs", "--control-allow-host=*", "--control-allow-origin",
                "http://localhost:3000", "--control-token", "s3cret", "--control", "0.0.0.0:9000",
                "--control-insecure-no-token",
            ]))
        XCTAssertEqual(given.allowedHosts, ["mock-apns", "*"])
        XCTAssertEqual(given.allowedOrigins, ["http://localhost:3000"])
        XCTAssertEqual(given.token?.secret, "s3cret")
        XCTAssertEqual(given.address, "0.0.0.0:9000")
        XCTAssertTrue(given.insecureNoToken)
        XCTAssertEqual(try control([]), ControlConfiguration())
    }

    func testTheEnvironmentTokenIsBelowTheFlag() throws {
        let variable = CommandLineParser.controlTokenVariable
        XCTAssertEqual(variable, "MOCK_APNS_CONTROL_TOKEN")
        XCTAssertEqual(try control([], environment: [variable: "from-env"])?.token?.secret, "from-env")
        XCTAssertEqual(
            try control(["--control-token", "from-flag"], environment: [variable: "from-env"])?.token?.secret,
            "from-flag")
        XCTAssertNil(try control([], environment: [variable: ""])?.token, "an empty variable is no token")
        XCTAssertNil(try control(["--control", "off"], environment: [variable: "from-env"]))
    }

    func testBadValuesAreRefusedWithoutRepeatingTheToken() {
        let rows: [([String], String)] = [
            (["--control-token", "has space"], "--control-token: expected \(ControlToken.expectation)"),
            (["--control-token", "tøken"], "--control-token: expected \(ControlToken.expectation)"),
            (["--control-allow-host", "evil/x"], "--control-allow-host: expected a host name or IP address"),
            (["--control-allow-origin", "evil.example"], "--control-allow-origin: expected an origin"),
            (["--control-allow-origin", "http://a/path"], "--control-allow-origin: expected an origin"),
            (["--control", "off", "--control-token", "x"], "--control-token needs the control API"),
            (["--control-token", "a", "--control-token", "b"], "option --control-token given more than once"),
        ]
        for (args, prefix) in rows {
            XCTAssertThrowsError(try CommandLineParser.parse(args), "\(args)") {
                let message = ($0 as? CommandLineError)?.message ?? ""
                XCTAssertTrue(message.hasPrefix(prefix), message)
                XCTAssertFalse(message.contains("tøken") || message.contains("has space"), message)
            }
        }
        XCTAssertThrowsError(
            try CommandLineParser.parse([], environment: [CommandLineParser.controlTokenVariable: "a b"])
        ) {
            XCTAssertEqual(
                ($0 as? CommandLineError)?.message, "MOCK_APNS_CONTROL_TOKEN: expected \(ControlToken.expectation)")
        }
    }

    func testTheFileSetsTheControlAccess() throws {
        let configuration = try parseConfiguration(
            #"{"control": {"host": "::", "port": 1, "allowHosts": ["Box"], "allowOrigins": ["https://a.example:8443"], "token": "s3cret", "insecureNoToken": true}}"#
        )
        XCTAssertEqual(
            configuration.control,
            ControlConfiguration(
                host: "::", port: 1, allowedHosts: ["box"], allowedOrigins: ["https://a.example:8443"],
                token: ControlToken("s3cret"), insecureNoToken: true))
        XCTAssertEqual(try parseConfiguration(#"{"control": {"token": null}}"#).control, ControlConfiguration())
        let rows: [(String, String)] = [
            (#"{"control": {"allowHosts": "box"}}"#, #"control.allowHosts: expected an array of strings, got "box""#),
            (#"{"control": {"allowHosts": ["a b"]}}"#, "control.allowHosts[0]: expected a host name or IP address"),
            (#"{"control": {"allowOrigins": ["ftp://x"]}}"#, "control.allowOrigins[0]: expected an origin"),
            (#"{"control": {"token": "a b"}}"#, "control.token: expected \(ControlToken.expectation)"),
            (#"{"control": {"token": 12345}}"#, "control.token: expected \(ControlToken.expectation)"),
            (#"{"control": {"insecureNoToken": 1}}"#, "control.insecureNoToken: expected true or false"),
        ]
        for (json, prefix) in rows {
            XCTAssertThrowsError(try parseConfiguration(json), json) {
                let text = "\($0)"
                XCTAssertTrue(text.hasPrefix(prefix), text)
                if json.contains("token") {
                    XCTAssertFalse(text.contains("a b") || text.contains("12345"), "the token is not repeated: \(text)")
                }
            }
        }
    }

    func testATokenIsNeverShown() throws {
        let token = try XCTUnwrap(ControlToken("s3cret-value"))
        XCTAssertNil(ControlToken(""))
        XCTAssertNil(ControlToken(String(repeating: "a", count: 4097)))
        XCTAssertNotNil(ControlToken(String(repeating: "a", count: 4096)))
        var configuration = Configuration()
        configuration.control?.token = token
        for text in ["\(configuration)", String(reflecting: configuration), "\(token)", String(reflecting: token)] {
            XCTAssertFalse(text.contains("s3cret-value"), text)
        }
    }

    func testOnlyALoopbackBindingMayGoWithoutAToken() {
        for host in ["127.0.0.1", "127.9.9.9", "localhost", "LOCALHOST", "::1"] {
            XCTAssertNil(ControlConfiguration(host: host).exposureProblem, host)
        }
        for host in ["0.0.0.0", "::", "192.168.1.5", "box.example", "127.0.0.1.example"] {
            let problem = ControlConfiguration(host: host).exposureProblem ?? ""
            XCTAssertTrue(problem.contains("--control-insecure-no-token"), host)
            XCTAssertNil(ControlConfiguration(host: host, token: ControlToken("t")).exposureProblem, host)
            XCTAssertNil(ControlConfiguration(host: host, insecureNoToken: true).exposureProblem, host)
        }
    }
}
