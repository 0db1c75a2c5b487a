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
        XCTAssertFalse(
            compose.contains("\"\(controlPort):\(controlPort)\""), "compose publishes the control port beyond 127.0.0.1"
        )
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

    /// Every Apple host name the test certificate covers (tls/generate.sh's `HOSTS`: the
    /// device-push hosts and the broadcast and channel-management ones, docs/broadcast.md A1) is
    /// a network alias of the mock-apns service, and the other way round.
    func testTheAliasesAreTheCertificatesAppleHosts() throws {
        let script = try read("tls/generate.sh")
        let start = try XCTUnwrap(script.range(of: "HOSTS=(\n"))
        let end = try XCTUnwrap(script.range(of: "\n)", range: start.upperBound..<script.endIndex))
        let hosts = script[start.upperBound..<end.lowerBound].split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0 != "localhost" }
        XCTAssertTrue(hosts.contains("api-manage-broadcast.sandbox.push.apple.com"), "\(hosts)")
        XCTAssertTrue(hosts.contains("api-broadcast.push.apple.com"), "\(hosts)")
        let compose = try read("docker-compose.yml")
        let aliases = compose.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("- ") && $0.hasSuffix(".apple.com") }.map { String($0.dropFirst(2)) }
        XCTAssertEqual(Set(aliases), Set(hosts))
        XCTAssertEqual(aliases.count, hosts.count, "\(aliases)")
    }

    /// The image is healthy by `mock-apns health` on the control port CMD serves (no curl), and a
    /// dependent service waits for it.
    func testHealthCheckAsksTheControlPortTheCommandServes() throws {
        let dockerfile = try read("Dockerfile")
        let check = try flowList(in: dockerfile, after: "HEALTHCHECK")
        XCTAssertEqual(try flowList(in: dockerfile, after: "ENTRYPOINT"), [check[0]], "runs the image's binary")
        XCTAssertEqual(Array(check.dropFirst().prefix(2)), ["health", "--control"])
        guard case .serve(let configuration) = try CommandLineParser.parse(try flowList(in: dockerfile, after: "CMD"))
        else { return XCTFail("CMD does not serve") }
        let url = try XCTUnwrap(URL(string: check[3]))
        XCTAssertEqual(url.host, "127.0.0.1")
        XCTAssertEqual(url.port, configuration.control?.port)
        XCTAssertFalse(
            dockerfile.split(separator: "\n").contains { !$0.hasPrefix("#") && $0.contains("curl") },
            "the image installs and runs no curl")
        let compose = try read("docker-compose.yml")
        XCTAssertTrue(compose.contains("condition: service_healthy"), "the dependent example waits for health")
        let ignored = try read(".dockerignore").split(separator: "\n").map(String.init)
        for entry in [".build/", ".swiftpm/", ".git/"] {
            XCTAssertTrue(ignored.contains(entry), "\(entry) not ignored")
        }
    }

    /// README's Testcontainers set-ups name the image the Dockerfile is built as, both ports it
    /// exposes, and wait on `/v1/health` on the control port.
    func testTestcontainersSnippetsMatchTheDockerfile() throws {
        let dockerfile = try read("Dockerfile")
        let readme = try read("README.md")
        let image = try XCTUnwrap(
            try read("docker-compose.yml").split(separator: "\n").first { $0.contains("image: ") }.map {
                $0.trimmingCharacters(in: .whitespaces).dropFirst("image: ".count)
            })
        XCTAssertTrue(dockerfile.contains("docker build -t \(image) ."), "the Dockerfile's build line names \(image)")
        let exposed = try XCTUnwrap(dockerfile.split(separator: "\n").first { $0.hasPrefix("EXPOSE") })
            .split(separator: " ").dropFirst().map(String.init)
        XCTAssertEqual(exposed, ["2197", "8197"])
        guard case .serve(let configuration) = try CommandLineParser.parse(try flowList(in: dockerfile, after: "CMD"))
        else { return XCTFail("CMD does not serve") }
        let control = String(try XCTUnwrap(configuration.control?.port))
        let section = try XCTUnwrap(readme.range(of: "**Testcontainers.**").map { String(readme[$0.lowerBound...]) })
        for (language, fence) in [("Java", "```java"), ("Go", "```go"), ("Python", "```python"), ("Node", "```js")] {
            let start = try XCTUnwrap(section.range(of: fence), "no \(language) set-up")
            let rest = section[start.upperBound...]
            let snippet = String(rest[..<(rest.range(of: "```")?.lowerBound ?? rest.endIndex)])
            XCTAssertTrue(snippet.contains("\"\(image)\""), "\(language): not the image \(image)")
            for port in exposed { XCTAssertTrue(snippet.contains(port), "\(language): port \(port) not exposed") }
            XCTAssertTrue(snippet.contains("/v1/health"), "\(language): no wait on /v1/health")
            XCTAssertTrue(
                snippet.components(separatedBy: control).count > 2,
                "\(language): the control port \(control) is not waited on")
        }
    }
}
