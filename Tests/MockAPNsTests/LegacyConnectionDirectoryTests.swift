import APNsAuth
import APNsCore
import ControlAPI
import XCTest

@testable import MockAPNs

/// The pure parts of the legacy connections' directory and handler (docs/legacy-binary.md §8).
final class LegacyConnectionDirectoryTests: XCTestCase {
    private func certificate(uid: String?, topics: [String]) -> CertificateIdentity {
        CertificateIdentity(
            subject: "CN=x", uid: uid, topics: topics.map { CertificateTopic(topic: $0, types: ["app"]) },
            environments: [.sandbox], declaresEnvironment: true, notBefore: 0, notAfter: 1)
    }

    /// The binary protocol has no topic field: the UID (the base bundle ID) even when the
    /// certificate lists several topics; else its only topic; else none.
    func testTopicOfACertificate() {
        let rows: [(uid: String?, topics: [String], topic: String?, line: UInt)] = [
            ("com.a", [], "com.a", #line),
            ("com.a", ["com.a", "com.a.voip", "com.a.complication"], "com.a", #line),
            (nil, ["com.b"], "com.b", #line),
            (nil, ["com.b", "com.b.voip"], nil, #line),
            (nil, [], nil, #line),
        ]
        for row in rows {
            XCTAssertEqual(
                BinaryGatewayHandler.topic(of: certificate(uid: row.uid, topics: row.topics)), row.topic,
                line: row.line)
        }
    }

    /// Legacy ids count from 2^32; HTTP/2 ones below.
    func testOwnsTheIdsFromTwoToTheThirtySecond() {
        XCTAssertFalse(LegacyConnectionDirectory.owns(1))
        XCTAssertFalse(LegacyConnectionDirectory.owns((1 << 32) - 1))
        XCTAssertTrue(LegacyConnectionDirectory.owns(1 << 32))
    }

    /// GOAWAY, drain and blackhole are refused naming the command, the protocol and what to use.
    func testRefusalNamesTheCommandAndTheAlternative() {
        let commands: [(ConnectionCommand, String)] = [
            (.goaway(errorCode: 0, reason: nil, closeAfterMilliseconds: nil), "goaway"),
            (.drain(reason: nil, maxMilliseconds: 1), "drain"), (.blackhole, "blackhole"),
        ]
        for (command, name) in commands {
            let text = LegacyConnectionDirectory.refusal(of: command, transport: "binary")
            XCTAssertTrue(text.contains("legacy binary connection: \(name) is an HTTP/2 command"), text)
            XCTAssertTrue(text.contains("use close or reset"), text)
        }
    }

    /// Without a server (before start), nothing is listed and a command finds nothing.
    func testWithoutAServerNothingIsListed() {
        let directory = LegacyConnectionDirectory()
        XCTAssertEqual(directory.connections(), [])
        XCTAssertEqual(directory.perform(.close, onConnection: 1 << 32), .notFound)
    }
}
