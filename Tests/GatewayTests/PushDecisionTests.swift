import XCTest

@testable import APNsCore
@testable import Faults
@testable import Gateway
@testable import Recording

/// `Gateway.handle`'s one `PushDecision`: the credential check passed in and told the outcome,
/// its ranking, a connection-ending credential, acceptance and the stream profile.
final class PushDecisionTests: XCTestCase {
    let token = String(repeating: "0f", count: 32)
    let connection = PushOrigin(id: 7, listener: "s", environment: .sandbox, peer: "127.0.0.1:1")

    func makeGateway() -> Gateway {
        Gateway(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(), options: ValidationOptions(),
            clock: { 1_764_489_600.25 }, makeID: { $0 ? "GEN-UPPER" : "gen-lower" })
    }

    func request(path: String? = nil) -> HTTP2Request {
        HTTP2Request(
            method: "POST", path: path ?? "/3/device/\(token)",
            headers: [HeaderField(name: "apns-topic", value: "com.example.app")], body: Array(#"{"aps":{}}"#.utf8))
    }

    /// Answers `result` and remembers what it was told.
    final class Checker: CredentialChecker {
        var result: AuthorizationResult?
        var checked = 0
        var settled: [Bool] = []
        init(_ result: AuthorizationResult?) { self.result = result }
        func check(_ verdict: ValidationResult, of request: HTTP2Request) -> AuthorizationResult? {
            checked += 1
            return result
        }
        func settle(accepted: Bool) { settled.append(accepted) }
    }

    let identity = CredentialIdentity(kind: "token", keyID: "K", teamID: "T", verdict: "checked")

    private func decide(
        _ gateway: Gateway, _ request: HTTP2Request, _ checker: Checker, profile: inout StreamProfileState?,
        stream: Int32 = 1
    ) -> PushDecision {
        gateway.handle(
            request, connection: connection, streamID: stream, memo: PreviousRequest(), credentials: checker,
            streamProfile: &profile)
    }

    func testAcceptedPushIsSettledAsAcceptedAndRestoresTheStreamLimit() throws {
        let checker = Checker(AuthorizationResult(reason: nil, identity: identity))
        var profile: StreamProfileState? = StreamProfileState(listenerLimit: 100, lowered: true)
        let decision = decide(makeGateway(), request(), checker, profile: &profile)
        XCTAssertTrue(decision.accepted)
        XCTAssertEqual(decision.plan, .normal)
        XCTAssertEqual(decision.response.status, 200)
        XCTAssertEqual(checker.settled, [true])
        XCTAssertEqual(decision.streamLimitChange, 100)
        XCTAssertEqual(profile?.lowered, false)
    }

    /// Method and path problems outrank the credential's reason; other checks rank after it
    /// (docs/apns-behaviour.md §9).
    func testCredentialReasonRanksAfterPathAndBeforeDeviceToken() throws {
        let rejecting = AuthorizationResult(reason: .missingProviderToken, identity: identity)
        var profile: StreamProfileState?
        let gateway = makeGateway()
        let badPath = decide(gateway, request(path: "/3/nowhere"), Checker(rejecting), profile: &profile)
        XCTAssertEqual(badPath.response.status, 404)
        let checker = Checker(rejecting)
        let badToken = decide(gateway, request(path: "/3/device/xyz"), checker, profile: &profile)
        XCTAssertEqual(badToken.response.status, 403)
        XCTAssertEqual(try XCTUnwrap(gateway.store.record(seq: badToken.seq)).reason, .missingProviderToken)
        XCTAssertFalse(badToken.accepted)
        XCTAssertEqual(checker.settled, [false])
    }

    /// A connection-ending credential: no stream answer, GOAWAY with its reason, no fault rule
    /// consulted, no stream-limit change; the record says no status.
    func testConnectionEndingCredentialPlansGoawayInsteadOfAnAnswer() throws {
        let gateway = makeGateway()
        try gateway.faults.add(FaultRule(action: .respond(FaultResponse(reason: .serviceUnavailable))))
        let checker = Checker(AuthorizationResult(reason: .badCertificate, identity: identity, closesConnection: true))
        var profile: StreamProfileState? = StreamProfileState(listenerLimit: 100, lowered: false)
        let decision = decide(gateway, request(), checker, profile: &profile)
        XCTAssertEqual(decision.plan, .endConnection(.badCertificate))
        XCTAssertEqual(decision.connectionEndReason, .badCertificate)
        XCTAssertEqual(decision.connectionOrigin, .certificate)
        XCTAssertNil(decision.fault)
        XCTAssertFalse(decision.accepted)
        XCTAssertNil(decision.streamLimitChange)
        let record = try XCTUnwrap(gateway.store.record(seq: decision.seq))
        XCTAssertEqual(record.status, 0)
        XCTAssertEqual(record.reason, .badCertificate)
    }

    /// A fault that leaves the stream unanswered makes a good push not accepted: the credential
    /// check hears so, the profile lowers the limit, and the plan and origin name the rule.
    func testFaultWithoutAnswerIsNotAccepted() throws {
        let gateway = makeGateway()
        try gateway.faults.add(FaultRule(action: .close(.beforeResponse)))
        let checker = Checker(AuthorizationResult(reason: nil, identity: identity))
        var profile: StreamProfileState? = StreamProfileState(listenerLimit: 100, lowered: false)
        let decision = decide(gateway, request(), checker, profile: &profile, stream: 9)
        XCTAssertFalse(decision.accepted)
        XCTAssertEqual(checker.settled, [false])
        XCTAssertEqual(decision.streamLimitChange, 1)
        XCTAssertEqual(
            decision.plan,
            ActionPlan(answer: .none, stream: .leaveOpen, connection: .close(reset: false, when: .beforeResponse)))
        XCTAssertEqual(decision.connectionOrigin, .fault(ruleID: "f1", action: "close"))
        XCTAssertEqual(try XCTUnwrap(gateway.store.record(seq: decision.seq)).status, 0)
    }

    /// A fault after the response keeps the gateway's answer: accepted.
    func testFaultAfterTheResponseKeepsTheAnswerAccepted() throws {
        let gateway = makeGateway()
        try gateway.faults.add(FaultRule(action: .goaway(GoawayFault(when: .afterResponse))))
        let checker = Checker(nil)
        var profile: StreamProfileState?
        let decision = decide(gateway, request(), checker, profile: &profile)
        XCTAssertTrue(decision.accepted)
        XCTAssertEqual(decision.response.status, 200)
        XCTAssertTrue(decision.plan.connectionAfterResponse)
        XCTAssertEqual(checker.settled, [true])
    }
}
