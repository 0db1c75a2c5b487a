import APNsCore
import Configuration
import Foundation
import TestSupport
import XCTest

/// Docker does not run on our machines, so this checks docker-compose.yml and the Dockerfile
/// against the CLI instead: the command parses, and the ports it listens on are the ones published.
final class DockerComposeTests: XCTestCase {
    func read(_ name: String) throws -> String {
        try String(contentsOf: RepositoryPaths.root.appendingPathComponent(name), encoding: .utf8)
    }

    /// The JSON-style flow list after `prefix` on its line, e.g. `command: ["serve", ...]`.
    func flowList(in text: String, after prefix: String) throws -> [String] {
        let line = try XCTUnwrap(
            text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(prefix) })
        let list = try XCTUnwrap(line.range(of: "[").map { String(line[$0.lowerBound...]) })
        return try JSONDecoder().decode([String].self, from: Data(list.utf8))
    }

    func testComposeCommandParsesAndMatchesPublishedPorts() throws {
        let compose = try read("docker-compose.yml")
        let dockerfile = try read("Dockerfile")
        let command = try flowList(in: compose, after: "command:")
        XCTAssertEqual(command, try flowList(in: dockerfile, after: "CMD"), "compose command and Dockerfile CMD differ")
        guard case .serve(let configuration) = try CommandLineParser.parse(command) else {
            return XCTFail("compose command does not start the server: \(command)")
        }
        let apnsPort = configuration.listeners[0].port
        let controlPort = try XCTUnwrap(configuration.control?.port)
        XCTAssertEqual(configuration.listeners[0].host, "0.0.0.0", "must listen beyond the container's loopback")
        XCTAssertEqual(configuration.control?.host, "0.0.0.0")
        // The control API runs without a token in the container, so the host publishes it on its
        // loopback only; a token (MOCK_APNS_CONTROL_TOKEN) is passed through when set.
        XCTAssertNil(configuration.control?.token)
        XCTAssertEqual(configuration.control?.insecureNoToken, true)
        XCTAssertEqual(configuration.control?.allowedHosts, ["mock-apns"])
        XCTAssertNil(configuration.control?.exposureProblem)
        XCTAssertTrue(compose.contains("- MOCK_APNS_CONTROL_TOKEN"), "compose does not pass the token through")
        guard
            case .serve(let withToken) = try CommandLineParser.parse(
                command, environment: ["MOCK_APNS_CONTROL_TOKEN": "t0k"])
        else { return XCTFail("compose command does not start the server with a token") }
        XCTAssertEqual(withToken.control?.token?.secret, "t0k", "the environment's token is required")
        for port in [apnsPort, controlPort] {
            let published = port == controlPort ? "\"127.0.0.1:\(port):\(port)\"" : "\"\(port):\(port)\""
            XCTAssertTrue(compose.contains(published), "compose does not publish \(port) as \(published)")
            XCTAssertTrue(
                dockerfile.contains("EXPOSE")
                    && dockerfile.split(separator: "\n")
                        .contains { $0.hasPrefix("EXPOSE") && $0.contains(String(port)) },
                "Dockerfile does not expose \(port)")
        }
        for path in [configuration.listeners[0].tlsCertificatePath, configuration.listeners[0].tlsKeyPath] {
            let file = try XCTUnwrap(path)
            XCTAssertTrue(file.hasPrefix("/app/tls/"), file)
            let local = RepositoryPaths.root.appendingPathComponent("tls").appendingPathComponent(
                String(file.dropFirst("/app/tls/".count)))
            XCTAssertTrue(FileManager.default.fileExists(atPath: local.path), "\(local.path) is not in the repo")
        }
        for alias in ["api.sandbox.push.apple.com", "api.push.apple.com", "api.development.push.apple.com"] {
            XCTAssertTrue(compose.contains("- \(alias)"), "missing network alias \(alias)")
        }
    }
}
