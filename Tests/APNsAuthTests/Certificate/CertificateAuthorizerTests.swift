import APNsAuth
import APNsCore
import Foundation
import XCTest

/// What a push certificate allows (docs/apns-behaviour.md §5; docs/field-cases.md C2).
final class CertificateAuthorizerTests: XCTestCase {
    private let app = "com.example.app"
    private let now = Date().timeIntervalSince1970

    private struct Row {
        let name: String
        let certificate: String
        let topic: String?
        var pushType: PushType? = .alert
        var environment: APNsEnvironment = .sandbox
        let reason: Reason?
        let usedTopic: String?
    }

    private var rows: [Row] {
        [
            Row(
                name: "single, topic omitted → UID", certificate: "client-sandbox-single", topic: nil, reason: nil,
                usedTopic: app),
            Row(
                name: "single, own topic", certificate: "client-sandbox-single", topic: app, reason: nil, usedTopic: app
            ),
            Row(
                name: "single, voip not granted", certificate: "client-sandbox-single", topic: app + ".voip",
                pushType: .voip,
                reason: .topicDisallowed, usedTopic: app + ".voip"),
            Row(
                name: "single, other app", certificate: "client-sandbox-single", topic: "com.other",
                reason: .topicDisallowed,
                usedTopic: "com.other"),
            Row(
                name: "multi, topic omitted", certificate: "client-universal-multi", topic: nil, reason: .missingTopic,
                usedTopic: nil),
            Row(name: "multi, app", certificate: "client-universal-multi", topic: app, reason: nil, usedTopic: app),
            Row(
                name: "multi, voip", certificate: "client-universal-multi", topic: app + ".voip", pushType: .voip,
                reason: nil,
                usedTopic: app + ".voip"),
            Row(
                name: "multi, complication", certificate: "client-universal-multi", topic: app + ".complication",
                pushType: .complication, reason: nil, usedTopic: app + ".complication"),
            Row(
                name: "multi, widgets not listed", certificate: "client-universal-multi",
                topic: app + ".push-type.widgets",
                pushType: .widgets, reason: .topicDisallowed, usedTopic: app + ".push-type.widgets"),
            Row(
                name: "location needs a token", certificate: "client-universal-multi", topic: app + ".location-query",
                pushType: .location, reason: .topicDisallowed, usedTopic: app + ".location-query"),
            Row(
                name: "location to a covered topic", certificate: "client-universal-multi", topic: app,
                pushType: .location, reason: .topicDisallowed, usedTopic: app),
            Row(
                name: "push type unknown", certificate: "client-sandbox-single", topic: nil, pushType: nil, reason: nil,
                usedTopic: app),
            Row(
                name: "sandbox cert on production", certificate: "client-sandbox-single", topic: app,
                environment: .production,
                reason: .badCertificateEnvironment, usedTopic: app),
            Row(
                name: "production cert on sandbox", certificate: "client-production-multi", topic: app,
                reason: .badCertificateEnvironment, usedTopic: app),
            Row(
                name: "production cert on production", certificate: "client-production-single", topic: nil,
                environment: .production,
                reason: nil, usedTopic: app),
            Row(
                name: "universal on production", certificate: "client-universal-single", topic: app,
                environment: .production,
                reason: nil, usedTopic: app),
            Row(
                name: "no environment extension on production", certificate: "client-noenv-single", topic: app,
                environment: .production, reason: nil, usedTopic: app),
            Row(name: "expired", certificate: "client-expired", topic: app, reason: .badCertificate, usedTopic: app),
            Row(
                name: "expired beats topic rules", certificate: "client-expired", topic: "com.other",
                reason: .badCertificate,
                usedTopic: "com.other"),
        ]
    }

    func testRows() {
        for row in rows {
            let identity = AuthFixtures.certificate(row.certificate)
            let result = CertificateAuthorizer.authorize(
                identity, topic: row.topic, pushType: row.pushType,
                environment: row.environment, nowSeconds: now)
            XCTAssertEqual(result.reason, row.reason, "\(row.name): \(result.identity.verdict)")
            XCTAssertEqual(result.topic, row.usedTopic, row.name)
            XCTAssertEqual(
                result.closesConnection, row.reason == .badCertificate || row.reason == .badCertificateEnvironment,
                row.name)
            XCTAssertEqual(result.identity.kind, .certificate, row.name)
            XCTAssertEqual(result.identity.subject, identity.subject, row.name)
            XCTAssertEqual(result.identity.verdict.hasPrefix("rejected: "), row.reason != nil, row.name)
        }
    }

    func testConnectionReason() {
        let sandbox = AuthFixtures.certificate("client-sandbox-single")
        XCTAssertNil(CertificateAuthorizer.connectionReason(sandbox, environment: .sandbox, nowSeconds: now))
        XCTAssertEqual(
            CertificateAuthorizer.connectionReason(sandbox, environment: .production, nowSeconds: now),
            .badCertificateEnvironment)
        XCTAssertEqual(
            CertificateAuthorizer.connectionReason(sandbox, environment: .sandbox, nowSeconds: sandbox.notAfter + 1),
            .badCertificate)
        XCTAssertEqual(
            CertificateAuthorizer.connectionReason(sandbox, environment: .sandbox, nowSeconds: sandbox.notBefore - 1),
            .badCertificate)
    }

    /// pushy's mock answers BadTopic for uncovered topics; the reason is a parameter.
    func testUncoveredTopicReasonIsConfigurable() {
        let identity = AuthFixtures.certificate("client-universal-multi")
        let result = CertificateAuthorizer.authorize(
            identity, topic: "com.other", pushType: .alert, environment: .sandbox,
            nowSeconds: now, uncoveredTopicReason: .badTopic)
        XCTAssertEqual(result.reason, .badTopic)
    }

    /// The same rules on an identity built by hand (no OpenSSL): a certificate listing one topic.
    func testHandBuiltIdentity() {
        let identity = CertificateIdentity(
            subject: "UID=com.x", uid: "com.x",
            topics: [CertificateTopic(topic: "com.x", types: ["app"])],
            environments: [.production], declaresEnvironment: true,
            notBefore: 0, notAfter: 2_000_000_000)
        XCTAssertEqual(identity.defaultTopic, "com.x")
        let result = CertificateAuthorizer.authorize(
            identity, topic: nil, pushType: nil, environment: .production,
            nowSeconds: 1_000_000_000)
        XCTAssertEqual(
            result,
            CertificateAuthorization(
                topic: "com.x", reason: nil,
                identity: AuthIdentity(
                    kind: .certificate, subject: "UID=com.x",
                    verdict: "authorized")))
    }
}
