import XCTest

@testable import APNsCore
@testable import Faults
@testable import Gateway
@testable import Recording

final class GatewayTests: XCTestCase {
    let token = String(repeating: "0f", count: 32)

    func makeGateway(devices: [DeviceRegistration] = []) -> Gateway {
        Gateway(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(devices: devices),
            options: ValidationOptions(), clock: { 1_764_489_600.25 }, makeID: { $0 ? "GEN-UPPER" : "gen-lower" })
    }

    func request(
        path: String? = nil, headers: [(String, String)] = [("apns-topic", "com.example.app")],
        body: String = #"{"aps":{"alert":"hi"}}"#
    ) -> HTTP2Request {
        HTTP2Request(
            method: "POST", path: path ?? "/3/device/\(token)",
            headers: headers.map { HeaderField(name: $0.0, value: $0.1) }, body: Array(body.utf8))
    }

    let sandbox = PushOrigin(id: 7, listener: "s", environment: .sandbox, peer: "127.0.0.1:1")
    let production = PushOrigin(id: 8, listener: "p", environment: .production, peer: "127.0.0.1:2")

    func testAcceptedPushAnswersApnsIDAndUniqueIDOnSandboxOnly() {
        let gateway = makeGateway()
        let first = gateway.handle(request(), connection: sandbox, streamID: 1)
        let (sandboxResponse, seq) = (first.response, first.seq)
        XCTAssertEqual(
            sandboxResponse,
            PushResponse(
                status: 200,
                headers: [
                    HeaderField(name: "apns-id", value: "GEN-UPPER"),
                    HeaderField(name: "apns-unique-id", value: "gen-lower"),
                ]))
        XCTAssertEqual(seq, 1)
        let productionResponse = gateway.handle(request(), connection: production, streamID: 1).response
        XCTAssertEqual(productionResponse.headers, [HeaderField(name: "apns-id", value: "GEN-UPPER")])
        XCTAssertTrue(productionResponse.body.isEmpty)
    }

    func testRejectionAnswersJSONReasonAndEchoesApnsID() {
        let gateway = makeGateway()
        let id = "123e4567-e89b-12d3-a456-426614174000"
        let response = gateway.handle(
            request(path: "/3/device/xyz", headers: [("apns-topic", "a.b"), ("apns-id", id)]),
            connection: production, streamID: 3
        ).response
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(
            response.headers,
            [
                HeaderField(name: "content-type", value: "application/json"),
                HeaderField(name: "apns-id", value: id),
            ])
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"reason":"BadDeviceToken"}"#)
    }

    func testUnregisteredAnswers410WithMillisecondTimestamp() {
        let gateway = makeGateway(devices: [
            DeviceRegistration(token: token, environment: .sandbox, unregisteredAt: 1_700_000_000_123)
        ])
        let response = gateway.handle(request(), connection: sandbox, streamID: 1).response
        XCTAssertEqual(response.status, 410)
        XCTAssertEqual(
            String(decoding: response.body, as: UTF8.self), #"{"reason":"Unregistered","timestamp":1700000000123}"#)
    }

    func testRecordIsStoredBeforeTheAnswerWithAuthorizationSignatureRemoved() throws {
        let gateway = makeGateway()
        let seq = gateway.handle(
            request(headers: [("apns-topic", "com.example.app"), ("authorization", "bearer aGVhZA.Y2xhaW1z.c2ln")]),
            connection: sandbox, streamID: 5
        ).seq
        let record = try XCTUnwrap(gateway.store.record(seq: seq))
        XCTAssertEqual(record.headers.first { $0.name == "authorization" }?.value, "bearer aGVhZA.Y2xhaW1z")
        XCTAssertEqual(record.streamID, 5)
        XCTAssertEqual(record.connectionID, 7)
        XCTAssertEqual(record.receivedAt, 1_764_489_600.25)
        XCTAssertEqual(record.apnsID, "GEN-UPPER")
        XCTAssertEqual(record.uniqueID, "gen-lower")
        XCTAssertEqual(record.status, 200)
    }

    func testFaultRuleAnswersInsteadAndIsRecorded() throws {
        let gateway = makeGateway()
        try gateway.faults.add(
            FaultRule(action: .sequence([.action(.respond(FaultResponse(reason: .serviceUnavailable))), .pass])))
        let first = gateway.handle(request(), connection: production, streamID: 1)
        XCTAssertEqual(first.response.status, 503)
        XCTAssertEqual(String(decoding: first.response.body, as: UTF8.self), #"{"reason":"ServiceUnavailable"}"#)
        let record = try XCTUnwrap(gateway.store.record(seq: first.seq))
        XCTAssertEqual(record.status, 503)
        XCTAssertEqual(record.reason, .serviceUnavailable)
        XCTAssertEqual(record.fault?.ruleID, "f1")
        XCTAssertEqual(record.fault?.action, "respond")
        let second = gateway.handle(request(), connection: production, streamID: 3)
        XCTAssertEqual(second.response.status, 200)
        XCTAssertNil(try XCTUnwrap(gateway.store.record(seq: second.seq)).fault)
    }

    /// A delayed answer's record is pending (no status, no reason, no cause) and the decision
    /// carries what it says once sent; an undelayed answer's record says it at once (issue 13).
    func testADelayedAnswerIsRecordedPending() throws {
        let gateway = makeGateway()
        try gateway.faults.add(
            FaultRule(
                action: .sequence([
                    .action(.delay(milliseconds: 50, then: nil)),
                    .action(.delay(milliseconds: 50, then: .respond(FaultResponse(reason: .serviceUnavailable)))),
                    .pass,
                ])))
        let held = gateway.handle(request(), connection: production, streamID: 1)
        XCTAssertEqual(held.response.status, 200)
        XCTAssertEqual(held.pendingAnswer, PendingAnswer(status: 200, reason: nil))
        let record = try XCTUnwrap(gateway.store.record(seq: held.seq))
        XCTAssertEqual(record.status, 0)
        XCTAssertNil(record.reason)
        XCTAssertNil(record.unanswered)
        XCTAssertEqual(record.fault?.action, "delay")
        let replaced = gateway.handle(request(), connection: production, streamID: 3)
        XCTAssertEqual(replaced.pendingAnswer, PendingAnswer(status: 503, reason: .serviceUnavailable))
        XCTAssertEqual(try XCTUnwrap(gateway.store.record(seq: replaced.seq)).status, 0)
        XCTAssertEqual(gateway.store.stats().byStatus, [0: 2])
        let normal = gateway.handle(request(), connection: production, streamID: 5)
        XCTAssertNil(normal.pendingAnswer)
        XCTAssertEqual(try XCTUnwrap(gateway.store.record(seq: normal.seq)).status, 200)
    }

    func testFaultThatLeavesTheStreamUnansweredRecordsNoStatus() throws {
        let gateway = makeGateway()
        try gateway.faults.add(FaultRule(action: .resetStream(.refusedStream)))
        let outcome = gateway.handle(request(), connection: production, streamID: 1)
        XCTAssertEqual(try XCTUnwrap(gateway.store.record(seq: outcome.seq)).status, 0)
        XCTAssertEqual(outcome.fault?.action, .resetStream(.refusedStream))
    }

    /// A request its connection will not serve (issue 13) is recorded with no status and no
    /// fault rule sees it: the rule's match count stays, and the next push still meets it.
    func testARequestNotServedIsRecordedWithoutStatusAndNoRuleSeesIt() throws {
        let gateway = makeGateway()
        try gateway.faults.add(FaultRule(action: .respond(FaultResponse(reason: .serviceUnavailable))))
        var noProfile: StreamProfileState?
        let unserved = gateway.handle(
            request(), connection: production, streamID: 1, credentials: NoCredentialCheck.shared,
            streamProfile: &noProfile, serve: false)
        XCTAssertNil(unserved.fault)
        XCTAssertFalse(unserved.accepted)
        let record = try XCTUnwrap(gateway.store.record(seq: unserved.seq))
        XCTAssertEqual(record.status, 0)
        XCTAssertNil(record.reason)
        XCTAssertNil(record.fault)
        XCTAssertNil(record.unanswered)
        XCTAssertEqual(gateway.faults.rules().map(\.matched), [0])
        XCTAssertEqual(gateway.handle(request(), connection: production, streamID: 3).response.status, 503)
        XCTAssertEqual(gateway.faults.rules().map(\.matched), [1])
    }

    /// Which faults leave the push answered as the gateway would have answered it (the transport
    /// counts those as accepted for stream profiles and token binding).
    func testAnswersNormallyOnlyWhenTheFaultLeavesTheGatewaysAnswer() {
        let respond = FaultAction.respond(FaultResponse(reason: .serviceUnavailable))
        let normal: [FaultAction] = [
            .settings(maxConcurrentStreams: 1), .withholdWindowUpdate(milliseconds: 10), .sequence([.pass]),
            .rateLimit(FaultRateLimit(perSecond: 1)), .delay(milliseconds: 10, then: nil),
            .delay(milliseconds: 10, then: .close(.afterResponse)), .goaway(GoawayFault(when: .afterResponse)),
            .close(.afterResponse), .reset(.afterResponse),
        ]
        let replaced: [FaultAction] = [
            respond, .sickConnection(FaultResponse(reason: .internalServerError)), .noResponse,
            .resetStream(.refusedStream), .delay(milliseconds: 10, then: respond),
            .delay(milliseconds: 10, then: .reset(.beforeResponse)), .goaway(GoawayFault(when: .beforeResponse)),
            .close(.beforeResponse), .reset(.beforeResponse),
        ]
        for action in normal { XCTAssertTrue(Gateway.answersNormally(action), "\(action)") }
        for action in replaced { XCTAssertFalse(Gateway.answersNormally(action), "\(action)") }
    }

    func testAuthorizationValuesThatAreNotJWTsAreRedactedWhole() {
        XCTAssertEqual(AuthorizationRedaction.redact("bearer a.b.c"), "bearer a.b")
        XCTAssertEqual(AuthorizationRedaction.redact("secret-api-key"), "<redacted>")
        XCTAssertEqual(AuthorizationRedaction.redact("bearer onlyone.dot"), "<redacted>")
        XCTAssertEqual(AuthorizationRedaction.redact("bearer é.ü.sig"), "bearer é.ü", "multi-byte text before the dots")
        XCTAssertEqual(AuthorizationRedaction.redact("bearer x..."), "bearer x.", "cut at the second dot")
        XCTAssertEqual(
            AuthorizationRedaction.redact("bearer h.c.sig."), "bearer h.c", "a trailing dot keeps no signature")
        XCTAssertEqual(AuthorizationRedaction.redact("bearer h.c.sig.x"), "bearer h.c")
        XCTAssertEqual(AuthorizationRedaction.redact("bearer a.b.c.SIG"), "bearer a.b")
        XCTAssertEqual(AuthorizationRedaction.redact("."), "<redacted>")
        XCTAssertEqual(AuthorizationRedaction.redact(""), "<redacted>")
    }
}
