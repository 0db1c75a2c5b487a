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
                "requests", "ageMs", "state",
            ])
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
}
