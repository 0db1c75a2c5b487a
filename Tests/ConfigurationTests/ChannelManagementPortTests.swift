import XCTest

@testable import APNsCore
@testable import Configuration

/// `--channel-management HOST` (docs/broadcast.md A1, README "Broadcast"): Apple's
/// channel-management listeners at Apple's ports, shaped like the first listener, and a port
/// collision (with the legacy binary listener, say) refused before anything starts.
final class ChannelManagementPortTests: XCTestCase {
    private struct NotServe: Error {}

    private func serve(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Configuration {
        guard case .serve(let configuration) = try CommandLineParser.parse(args) else {
            XCTFail("\(args) did not parse as serve", file: file, line: line)
            throw NotServe()
        }
        return configuration
    }

    func testApplesPorts() {
        XCTAssertEqual(ChannelManagementPort.sandbox, 2195)
        XCTAssertEqual(ChannelManagementPort.production, 2196)
    }

    func testTwoListenersLikeTheFirst() throws {
        let configuration = try serve([
            "--tls-cert", "tls/server.pem", "--tls-key", "tls/server-key.pem", "--auth", "strict",
            "--channel-management", "127.0.0.2",
        ])
        XCTAssertEqual(configuration.listeners.count, 3)
        let first = configuration.listeners[0]
        let rows: [(String, Int, APNsEnvironment)] = [
            ("manage-sandbox", 2195, .sandbox), ("manage-production", 2196, .production),
        ]
        for (listener, (name, port, environment)) in zip(configuration.listeners.dropFirst(), rows) {
            XCTAssertEqual(listener.name, name)
            XCTAssertEqual(listener.host, "127.0.0.2")
            XCTAssertEqual(listener.port, port)
            XCTAssertEqual(listener.environment, environment)
            XCTAssertEqual(listener.tlsCertificatePath, first.tlsCertificatePath)
            XCTAssertEqual(listener.tlsKeyPath, first.tlsKeyPath)
            XCTAssertEqual(listener.auth, .strict)
        }
        XCTAssertEqual(try serve([]).listeners.count, 1, "off unless given")
        XCTAssertEqual(
            try serve(["--channel-management", "::1"]).listeners.map(\.address),
            ["127.0.0.1:2197", "[::1]:2195", "[::1]:2196"])
    }

    func testAPortCollisionIsRefusedAtStartNamingTheListeners() {
        for args in [
            ["--channel-management", "127.0.0.1", "--binary", "127.0.0.1:2195"],
            ["--channel-management", "127.0.0.1", "--feedback", "0.0.0.0:2196"],
            ["--listen", "127.0.0.1:2196", "--channel-management", "127.0.0.1"],
        ] {
            XCTAssertThrowsError(try serve(args), "\(args)") { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains("conflicts with"), message)
                XCTAssertTrue(
                    message.contains(
                        "--channel-management 127.0.0.1 made listeners[1], manage-sandbox (127.0.0.1:2195) and listeners[2], manage-production"
                    ), message)
                XCTAssertTrue(message.contains("own"), message)
            }
        }
        XCTAssertNoThrow(
            try serve([
                "--channel-management", "127.0.0.2", "--binary", "127.0.0.1:2195", "--feedback", "127.0.0.1:2196",
            ]))
        XCTAssertThrowsError(try serve(["--channel-management", "127.0.0.2:2195"])) { error in
            XCTAssertTrue("\(error)".contains("give the host alone"), "\(error)")
        }
        XCTAssertThrowsError(try serve(["--channel-management", "no host"])) { error in
            XCTAssertTrue("\(error)".contains("--channel-management: expected"), "\(error)")
        }
    }
}
