import APNsAuth
import Foundation
import MockAPNs
import TestSupport
import XCTest

/// The server's test key behind `POST /v1/provider-tokens` (docs/console.md §6): a token it
/// signs passes a strict listener's own checks, `/v1/health` says how each listener
/// authenticates, and a configured key of the test key's ID leaves the server without one.
final class TestKeyTokenMinterTests: XCTestCase {
    private func makeServer(_ adjust: (inout Configuration) -> Void = { _ in }) throws -> MockAPNsServer {
        var configuration = Configuration()
        configuration.listeners[0].port = 0
        configuration.listeners[0].auth = .strict
        configuration.control = ControlConfiguration(host: "127.0.0.1", port: 0)
        configuration.workers = 1
        configuration.drainTimeoutSeconds = 1
        adjust(&configuration)
        let server = MockAPNsServer(configuration: configuration)
        try server.start()
        return server
    }

    /// A control request with curl: (HTTP status, the body as a dictionary).
    private func control(_ server: MockAPNsServer, _ method: String, _ path: String, body: String? = nil) throws
        -> (Int, [String: Any])
    {
        var arguments = ["-sS", "-X", method, "-w", "\n%{http_code}", try XCTUnwrap(server.controlURL) + path]
        if let body { arguments += ["-H", "content-type: application/json", "-d", body] }
        let result = try ProcessRunner.run("/usr/bin/curl", arguments)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let json = try JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8))
        return (Int(lines.last ?? "") ?? 0, json as? [String: Any] ?? [:])
    }

    func testATokenOfTheTestKeyPassesAStrictListener() throws {
        let server = try makeServer()
        defer { server.stop() }
        let (status, minted) = try control(server, "POST", "/v1/provider-tokens")
        XCTAssertEqual(status, 200, "\(minted)")
        XCTAssertEqual(minted["keyId"] as? String, ProviderTestKey.keyID)
        let token = try XCTUnwrap(minted["token"] as? String)
        let (checked, verdict) = try control(
            server, "POST", "/v1/validate/provider-token",
            body: #"{"token": "\#(token)", "topic": "com.example.app"}"#)
        XCTAssertEqual(checked, 200)
        XCTAssertEqual(verdict["accepted"] as? Bool, true, "\(verdict)")
        XCTAssertEqual(verdict["keyConfigured"] as? Bool, true)

        let (_, old) = try control(server, "POST", "/v1/provider-tokens", body: #"{"ageSeconds": 3700}"#)
        let (_, expired) = try control(
            server, "POST", "/v1/validate/provider-token", body: #"{"token": "\#(try XCTUnwrap(old["token"]))"}"#)
        XCTAssertEqual(expired["reason"] as? String, "ExpiredProviderToken", "\(expired)")

        let (_, health) = try control(server, "GET", "/v1/health")
        let listener = try XCTUnwrap((health["listeners"] as? [[String: Any]])?.first)
        XCTAssertEqual(listener["auth"] as? String, "strict")
        XCTAssertEqual(listener["clientCertificates"] as? Bool, false)
    }

    func testAConfiguredKeyOfTheTestKeysIDLeavesNoTestKey() throws {
        let folder = NSTemporaryDirectory() + "mockapns-keys-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(
            atPath: RepositoryPaths.path("fixtures/auth/AuthKey_TEAMUNI001.pub.pem"), toPath: folder + "/key.pem")
        let manifest =
            #"{"keys": [{"keyId": "\#(ProviderTestKey.keyID)", "teamId": "TEAM000001", "file": "key.pem", "#
            + #""scope": "team", "environments": ["sandbox"]}]}"#
        try manifest.write(toFile: folder + "/keys.json", atomically: true, encoding: .utf8)
        let server = try makeServer { $0.keysManifestPath = folder + "/keys.json" }
        defer { server.stop() }
        let (status, body) = try control(server, "POST", "/v1/provider-tokens")
        XCTAssertEqual(status, 503, "\(body)")
    }
}
