import APNsCore
import ControlAPI
import Foundation
import XCTest

final class ConnectionListEntryTests: XCTestCase {
    private func json(_ entry: ConnectionListEntry) throws -> [String: Any] {
        let data = try JSONEncoder().encode(entry)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Every key of `GET /v1/connections`' entries is written, `null` when absent, the age in
    /// milliseconds under `ageMs`.
    func testEveryKeyWrittenWithItsWireName() throws {
        let entry = ConnectionListEntry(
            id: 7, peer: "[::1]:50000", listener: "production", environment: .production, alpn: nil, tls: false,
            auth: "none", openStreams: 3, maxConcurrentStreams: 1, requests: 42, ageMilliseconds: 1_500)
        let object = try json(entry)
        XCTAssertEqual(
            Set(object.keys),
            [
                "id", "peer", "listener", "environment", "alpn", "tls", "auth", "openStreams", "maxConcurrentStreams",
                "requests", "ageMs", "state", "protocol", "certificateSubject", "topic", "legacy",
            ])
        XCTAssertEqual(object["protocol"] as? String, "http2", "HTTP/2 by default")
        XCTAssertTrue(object["certificateSubject"] is NSNull)
        XCTAssertTrue(object["topic"] is NSNull)
        XCTAssertTrue(object["legacy"] is NSNull)
        XCTAssertEqual(object["state"] as? String, "open", "open by default")
        XCTAssertEqual(object["id"] as? Int, 7)
        XCTAssertEqual(object["peer"] as? String, "[::1]:50000")
        XCTAssertEqual(object["environment"] as? String, "production")
        XCTAssertTrue(object["alpn"] is NSNull)
        XCTAssertEqual(object["tls"] as? Bool, false)
        XCTAssertEqual(object["openStreams"] as? Int, 3)
        XCTAssertEqual(object["maxConcurrentStreams"] as? Int, 1)
        XCTAssertEqual(object["requests"] as? Int, 42)
        XCTAssertEqual(object["ageMs"] as? Int, 1_500)

        var withALPN = entry
        withALPN.alpn = "h2"
        XCTAssertEqual(try json(withALPN)["alpn"] as? String, "h2")
    }

    /// A legacy binary connection: `protocol` `binary`, its certificate subject and topic, and
    /// its counts under `legacy`.
    func testALegacyConnectionNamesItsProtocolCertificateAndCounts() throws {
        let entry = ConnectionListEntry(
            id: 1 << 32, peer: "127.0.0.1:1", listener: "binary", environment: .sandbox, alpn: nil, tls: true,
            auth: "certificate UID=com.a", openStreams: 0, maxConcurrentStreams: 0, requests: 3, ageMilliseconds: 5,
            state: .closing, transport: "binary", certificateSubject: "UID=com.a", topic: "com.a",
            legacy: LegacyConnectionCounts(notifications: 3, accepted: 1, refused: 1, discarded: 1))
        let object = try json(entry)
        XCTAssertEqual(object["protocol"] as? String, "binary")
        XCTAssertEqual(object["state"] as? String, "closing")
        XCTAssertEqual(object["certificateSubject"] as? String, "UID=com.a")
        XCTAssertEqual(object["topic"] as? String, "com.a")
        let legacy = try XCTUnwrap(object["legacy"] as? [String: Any])
        XCTAssertEqual(legacy["notifications"] as? Int, 3)
        XCTAssertEqual(legacy["accepted"] as? Int, 1)
        XCTAssertEqual(legacy["refused"] as? Int, 1)
        XCTAssertEqual(legacy["discarded"] as? Int, 1)
        XCTAssertEqual(legacy["feedbackTuples"] as? Int, 0)
    }
}
