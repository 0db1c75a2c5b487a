import Foundation
// README snippet: import
import MockAPNsTesting
import TestSupport
import XCTest

/// The README's Swift embedding snippet ("Embedding in a Swift test suite") is the body of
/// `testReadmeSnippetRuns`, between the markers: compiled and run here, and compared with the
/// README byte for byte, so its API stays right. The dependency lines are checked against
/// Package.swift.
final class ReadmeSnippetTests: XCTestCase {
    func testReadmeSnippetRuns() async throws {
        // README snippet: begin
        var configuration = Configuration()
        configuration.listeners[0].port = 0  // a free port
        configuration.control = nil  // the store is read directly
        let server = MockAPNsServer(configuration: configuration)
        try server.start()
        defer { server.stop() }

        let token = String(repeating: "ab", count: 32)
        // Point the sender under test at server.listeners[0].url, trusting
        // server.certificatePEM(listener: 0); or push from the test with the client that trusts it:
        let client = try TestPushClient(server: server)
        defer { client.close() }
        let result = client.push(token: token, topic: "com.example.app", payload: #"{"aps":{"badge":3}}"#)
        XCTAssertEqual(result.response?.status, 200)

        // Waits up to the timeout; throws with the closest records when too few match.
        let accepted = try await server.waitForDeliveries(
            count: 1, matching: DeliveryMatch(token: token, status: 200), timeout: .seconds(2))
        XCTAssertEqual(accepted[0].payload, Array(#"{"aps":{"badge":3}}"#.utf8))
        // POST /v1/verify's rules in-process: exactly, at least, at most, never; payload paths.
        let badge = DeliveryMatch(token: token, payload: [.init(path: "aps.badge", value: .int(3))])
        let outcome = await server.verify(badge, .exactly(1))
        XCTAssertTrue(outcome.passed, outcome.description)
        // README snippet: end
    }

    /// The snippet as the README must show it: the import, a blank line, the body dedented.
    private func snippet() throws -> String {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        guard let begin = lines.firstIndex(where: { $0.hasSuffix("// README snippet: begin") }),
            let end = lines.firstIndex(where: { $0.hasSuffix("// README snippet: end") })
        else {
            // No markers means no snippet to compare: a failure, never a skip.
            XCTFail("the README snippet markers are missing from \(#filePath)")
            throw CocoaError(.fileReadCorruptFile)
        }
        let body = lines[(begin + 1)..<end].map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : $0 }
        return (["import MockAPNsTesting", ""] + body).joined(separator: "\n") + "\n"
    }

    private func readmeSection() throws -> String {
        let readme = try String(contentsOfFile: RepositoryPaths.path("README.md"), encoding: .utf8)
        let parts = readme.components(separatedBy: "\n## Embedding in a Swift test suite\n")
        XCTAssertEqual(parts.count, 2, "the README has the section")
        return parts.count == 2 ? parts[1].components(separatedBy: "\n## ")[0] : ""
    }

    func testTheReadmeShowsExactlyTheSnippet() throws {
        let section = try readmeSection()
        let blocks = section.components(separatedBy: "```swift\n").dropFirst().map {
            $0.components(separatedBy: "```")[0]
        }
        let expected = try snippet()
        XCTAssertTrue(blocks.contains(expected), "README's Swift block differs from ReadmeSnippetTests:\n" + expected)
    }

    func testTheReadmeDependencyLinesNameThisPackagesProducts() throws {
        let section = try readmeSection()
        let manifest = try String(contentsOfFile: RepositoryPaths.path("Package.swift"), encoding: .utf8)
        for product in ["MockAPNsTesting", "MockAPNs"] {
            XCTAssertTrue(manifest.contains(".library(name: \"\(product)\""), product)
        }
        XCTAssertTrue(manifest.contains("name: \"MockAPNs\","), "the package's name")
        // A path dependency's package identity is its folder's name, a URL's its last component:
        // the README names the product with that identity, not the manifest's name.
        XCTAssertTrue(section.contains(#".package(path: "../mock-apns")"#), section)
        XCTAssertTrue(section.contains(#".product(name: "MockAPNsTesting", package: "mock-apns")"#), section)
    }
}
