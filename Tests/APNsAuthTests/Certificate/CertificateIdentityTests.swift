import APNsAuth
import APNsCore
import Foundation
import XCTest

/// Each fixture client certificate parsed (docs/apns-behaviour.md §5).
final class CertificateIdentityTests: XCTestCase {
    private let app = "com.example.app"
    private let subject = "O=MockAPNs TEST ONLY,UID=com.example.app,CN=Apple Push Services: com.example.app"

    private var multiTopics: [CertificateTopic] {
        [
            CertificateTopic(topic: app, types: ["app"]),
            CertificateTopic(topic: app + ".voip", types: ["voip"]),
            CertificateTopic(topic: app + ".complication", types: ["complication"]),
        ]
    }

    func testFixtureCertificates() {
        let both = Set(APNsEnvironment.allCases)
        let rows: [(name: String, environments: Set<APNsEnvironment>, declares: Bool, multi: Bool)] = [
            ("client-sandbox-single", [.sandbox], true, false),
            ("client-production-single", [.production], true, false),
            ("client-universal-single", both, true, false),
            ("client-sandbox-multi", [.sandbox], true, true),
            ("client-production-multi", [.production], true, true),
            ("client-universal-multi", both, true, true),
            ("client-noenv-single", both, false, false),  // decision: no environment extension = both
            ("client-expired", both, true, false),
        ]
        let now = Date().timeIntervalSince1970
        for row in rows {
            let identity = AuthFixtures.certificate(row.name)
            XCTAssertEqual(identity.subject, subject, row.name)
            XCTAssertEqual(identity.uid, app, row.name)
            XCTAssertEqual(identity.environments, row.environments, row.name)
            XCTAssertEqual(identity.declaresEnvironment, row.declares, row.name)
            XCTAssertEqual(identity.topics, row.multi ? multiTopics : [], row.name)
            XCTAssertEqual(identity.coveredTopics, row.multi ? Set(multiTopics.map(\.topic)) : [app], row.name)
            XCTAssertEqual(identity.defaultTopic, row.multi ? nil : app, row.name)
            XCTAssertEqual(identity.isValid(atSeconds: now), row.name != "client-expired", row.name)
        }
    }

    func testExpiredDates() {
        let identity = AuthFixtures.certificate("client-expired")
        XCTAssertEqual(identity.notBefore, 1_577_836_800)  // 2020-01-01T00:00:00Z
        XCTAssertEqual(identity.notAfter, 1_609_459_200)  // 2021-01-01T00:00:00Z
        XCTAssertTrue(identity.isValid(atSeconds: 1_600_000_000))
        XCTAssertFalse(identity.isValid(atSeconds: 1_609_459_201))
        XCTAssertFalse(identity.isValid(atSeconds: 1_577_836_799))
    }

    /// DER input gives the same identity as PEM.
    func testDERInput() throws {
        let pem = try String(contentsOfFile: AuthFixtures.path("client-universal-multi.pem"), encoding: .utf8)
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = [UInt8](try XCTUnwrap(Data(base64Encoded: body)))
        XCTAssertEqual(try CertificateIdentity(der: der), AuthFixtures.certificate("client-universal-multi"))
        XCTAssertThrowsError(try CertificateIdentity(der: Array(der.prefix(100))))
        XCTAssertThrowsError(try CertificateIdentity(pem: "no certificate here"))
    }

    /// The CA itself has no UID and no topics.
    func testCertificateWithoutAPNsFields() {
        let ca = AuthFixtures.certificate("client-ca")
        XCTAssertNil(ca.uid)
        XCTAssertEqual(ca.topics, [])
        XCTAssertEqual(ca.coveredTopics, [])
        XCTAssertNil(ca.defaultTopic)
        XCTAssertTrue(ca.subject.contains("CN=MockAPNs Client CA (TEST ONLY)"), ca.subject)
    }
}
