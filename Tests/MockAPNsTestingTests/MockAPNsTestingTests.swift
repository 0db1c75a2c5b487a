import Foundation
import XCTest

@testable import MockAPNsTesting

/// `waitForDeliveries`, `verify` and `TestPushClient` against an in-process server.
final class MockAPNsTestingTests: XCTestCase {
    private static let token = String(repeating: "cd", count: 32)

    private func startServer() throws -> MockAPNsServer {
        var configuration = Configuration()
        configuration.listeners[0].port = 0
        configuration.control = nil
        let server = MockAPNsServer(configuration: configuration)
        try server.start()
        return server
    }

    func testWaitReturnsOnceEnoughMatchAndTimesOutWithTheClosestRecord() async throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try TestPushClient(server: server)
        defer { client.close() }
        XCTAssertEqual(client.push(token: Self.token, topic: "com.example.app").response?.status, 200)
        XCTAssertEqual(client.push(token: Self.token, topic: "com.example.other").response?.status, 200)
        let found = try await server.waitForDeliveries(
            count: 1, matching: DeliveryMatch(topic: "com.example.app"), timeout: .seconds(2))
        XCTAssertEqual(found.map(\.seq), [1])
        do {
            _ = try await server.waitForDeliveries(
                count: 1, matching: DeliveryMatch(token: Self.token, topic: "com.example.missing"),
                timeout: .milliseconds(50))
            XCTFail("should time out")
        } catch {
            XCTAssertFalse(error.outcome.passed)
            XCTAssertEqual(error.outcome.nearMisses.first?.differences.map(\.field), ["topic"])
            XCTAssertTrue(
                error.description.contains("0 matched; the closest: seq 2 (topic: expected"), error.description)
        }
    }

    func testVerifyCountsAndWatches() async throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try TestPushClient(server: server)
        defer { client.close() }
        XCTAssertEqual(client.push(token: Self.token, topic: "com.example.app").response?.status, 200)
        let mine = DeliveryMatch(token: Self.token)
        var outcome = await server.verify(mine, .exactly(1))
        XCTAssertTrue(outcome.passed, outcome.description)
        XCTAssertTrue(outcome.description.hasPrefix("verified: exactly 1 push matching"), outcome.description)
        outcome = await server.verify(mine, .atLeast(2))
        XCTAssertFalse(outcome.passed)
        outcome = await server.verify(mine, .atMost(0), within: .milliseconds(30))
        XCTAssertFalse(outcome.passed, "never, with one already there")
        outcome = await server.verify(DeliveryMatch(token: "ef"), .atMost(0), within: .milliseconds(30))
        XCTAssertTrue(outcome.passed)
        XCTAssertTrue(outcome.description.contains("within 30 ms"), outcome.description)
        // A push that lands while watching passes at once.
        let started = ContinuousClock().now
        async let later: Void = Self.push(to: server, after: .milliseconds(50))
        outcome = await server.verify(mine, .atLeast(2), within: .seconds(5))
        await later
        XCTAssertTrue(outcome.passed, outcome.description)
        XCTAssertLessThan(ContinuousClock().now - started, .seconds(4))
    }

    /// One push from a client of its own, after `delay`.
    private static func push(to server: MockAPNsServer, after delay: Duration) async {
        try? await Task.sleep(for: delay)
        let other = try? TestPushClient(server: server)
        _ = other?.push(token: token, topic: "com.example.app")
        other?.close()
    }

    func testTheClientTrustsOnlyThisServersCertificate() throws {
        let server = try startServer()
        defer { server.stop() }
        let client = try TestPushClient(server: server)
        XCTAssertEqual(client.connection.alpn, "h2")
        client.close()
        // Without the certificate trusted, the handshake fails: the client's trust is what made it work.
        XCTAssertThrowsError(try HTTP2ClientConnection.connect(url: server.listeners[0].url))
    }
}
