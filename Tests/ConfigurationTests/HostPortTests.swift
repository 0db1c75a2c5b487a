import XCTest

@testable import APNsCore
@testable import Configuration

final class HostPortTests: XCTestCase {
    func testParsesAddresses() throws {
        let rows: [(String, HostPort)] = [
            ("127.0.0.1:2197", HostPort(host: "127.0.0.1", port: 2197)),
            ("localhost:0", HostPort(host: "localhost", port: 0)),
            ("[::1]:2197", HostPort(host: "::1", port: 2197)),
            ("[::]:65535", HostPort(host: "::", port: 65535)),
            ("[fe80::1%eth0]:80", HostPort(host: "fe80::1%eth0", port: 80)),
            ("api.sandbox.push.apple.com:443", HostPort(host: "api.sandbox.push.apple.com", port: 443)),
        ]
        for (text, expected) in rows {
            XCTAssertEqual(try HostPort.parse(text), expected, text)
        }
    }

    func testExplainsBadAddresses() {
        let rows: [ErrorRow<String>] = [
            ErrorRow("", "missing :PORT"),
            ErrorRow("localhost", "missing :PORT"),
            ErrorRow(":2197", "the host is empty"),
            ErrorRow("::1:2197", "put IPv6 addresses in brackets, e.g. [::1]:2197"),
            ErrorRow("[::1:2197", "missing ']' after the IPv6 address"),
            ErrorRow("[::1]", "missing :PORT after ']'"),
            ErrorRow("[::1]2197", "missing :PORT after ']'"),
            ErrorRow("[]:2197", "the host is empty"),
            ErrorRow("host:", "the port must be an integer from 0 to 65535"),
            ErrorRow("host:65536", "the port must be an integer from 0 to 65535"),
            ErrorRow("host:-1", "the port must be an integer from 0 to 65535"),
            ErrorRow("host:+80", "the port must be an integer from 0 to 65535"),
            ErrorRow("host:123456", "the port must be an integer from 0 to 65535"),
            ErrorRow("my host:80", #"invalid character " " in the host"#),
        ]
        for row in rows {
            do {
                let parsed = try HostPort.parse(row.input)
                XCTFail("parsed \(row.input) as \(parsed)", line: row.line)
            } catch {
                row.check(error.hint)
            }
        }
    }

    func testDescriptionBracketsIPv6() {
        XCTAssertEqual(HostPort(host: "::1", port: 2197).description, "[::1]:2197")
        XCTAssertEqual(HostPort(host: "127.0.0.1", port: 0).description, "127.0.0.1:0")
        XCTAssertEqual(ListenerConfiguration(host: "::", port: 1).address, "[::]:1")
        XCTAssertEqual(ControlConfiguration(host: "::1").address, "[::1]:8197")
    }

    func testUnbracketedAcceptsBothIPv6Spellings() {
        XCTAssertEqual(HostPort.unbracketed("[::1]"), "::1")
        XCTAssertEqual(HostPort.unbracketed("::1"), "::1")
        XCTAssertEqual(HostPort.unbracketed("[]"), "[]")
        XCTAssertEqual(HostPort.unbracketed("localhost"), "localhost")
    }

    func testConflicts() {
        let rows: [(String, Int, String, Int, Bool, UInt)] = [
            ("127.0.0.1", 2197, "127.0.0.1", 2197, true, #line),
            ("127.0.0.1", 2197, "127.0.0.1", 2198, false, #line),
            ("127.0.0.1", 0, "127.0.0.1", 0, false, #line),
            ("0.0.0.0", 2197, "127.0.0.1", 2197, true, #line),
            ("127.0.0.1", 2197, "0.0.0.0", 2197, true, #line),
            ("0.0.0.0", 2197, "localhost", 2197, true, #line),
            ("0.0.0.0", 2197, "::1", 2197, false, #line),
            ("::", 2197, "127.0.0.1", 2197, true, #line),
            ("::1", 2197, "::1", 2197, true, #line),
            ("::1", 2197, "127.0.0.1", 2197, false, #line),
            ("Localhost", 1, "localhost", 1, true, #line),
            ("127.0.0.1", 2197, "localhost", 2197, true, #line),
            ("localhost", 2197, "::1", 2197, true, #line),
            ("localhost", 2197, "127.0.0.2", 2197, false, #line),
        ]
        for (a, aPort, b, bPort, expected, line) in rows {
            XCTAssertEqual(
                HostPort(host: a, port: aPort).conflicts(with: HostPort(host: b, port: bPort)), expected, line: line)
        }
    }
}
