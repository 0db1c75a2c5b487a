import XCTest

@testable import HTTP2Client

final class BinarySendCommandTests: XCTestCase {
    private func run(_ arguments: [String], feedback: Bool = false) -> (Int32, [String], [String]) {
        var out: [String] = []
        var err: [String] = []
        let output = SendOutput(standardOutput: { out.append($0) }, standardError: { err.append($0) })
        let status =
            feedback ? FeedbackCommand.run(arguments, output: output) : BinarySendCommand.run(arguments, output: output)
        return (status, out, err)
    }

    func testUsageErrorsExitTwoNamingTheOption() {
        let rows: [([String], String)] = [
            (["--device-token", "aa"], "--binary HOST:PORT is required"),
            (["--binary", "127.0.0.1"], "--binary: expected HOST:PORT"),
            (["--binary", "127.0.0.1:2195"], "--device-token is required"),
            (["--binary", "127.0.0.1:2195", "--device-token", "xyz"], "--device-token: expected hexadecimal"),
            (["--binary", "127.0.0.1:2195", "--device-token", "aa", "--command", "3"], "--command: expected"),
            (
                ["--binary", "127.0.0.1:2195", "--device-token", "aa", "--priority", "7"],
                "--priority: expected 5 or 10"
            ),
            (["--binary", "127.0.0.1:2195", "--device-token", "aa", "--cert-key", "k.pem"], "--cert-key needs --cert"),
        ]
        for (arguments, message) in rows {
            let (status, _, err) = run(arguments)
            XCTAssertEqual(status, 2, "\(arguments)")
            XCTAssertTrue(err.first?.contains(message) == true, "\(arguments): \(err)")
        }
        XCTAssertEqual(run([], feedback: true).0, 2)
        XCTAssertEqual(run(["127.0.0.1:x"], feedback: true).0, 2)
    }

    func testHelpAndRefusedConnection() {
        let (status, out, _) = run(["--help"])
        XCTAssertEqual(status, 0)
        XCTAssertTrue(out.first?.contains("--command 0|1|2") == true)
        XCTAssertEqual(run(["--help"], feedback: true).0, 0)
        // Port 1 on loopback: nothing listens.
        XCTAssertEqual(run(["--binary", "127.0.0.1:1", "--device-token", "aa", "--insecure"]).0, 1)
        XCTAssertEqual(run(["127.0.0.1:1", "--insecure"], feedback: true).0, 1)
    }

    func testAddressesWithIPv6Brackets() throws {
        let address = try BinaryClientArguments.address("[::1]:2195", option: "--binary")
        XCTAssertEqual(address.host, "::1")
        XCTAssertEqual(address.port, 2195)
    }
}
