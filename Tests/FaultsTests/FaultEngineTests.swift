import APNsCore
import XCTest

@testable import Faults
@testable import TestFixtures

/// Ordering, ids, removal, counters, sick connections and resolution of actions.
final class FaultEngineTests: XCTestCase {
    typealias F = FaultFixture

    func testEmptyEngineIsNotArmed() {
        let engine = FaultEngine()
        XCTAssertFalse(engine.isArmed)
        XCTAssertNil(engine.evaluate(F.context()))
        XCTAssertEqual(engine.rules(), [])
    }

    func testFirstMatchingRuleApplies() {
        let engine = F.engine(
            #"{"match":{"topic":"other"},"action":{"type":"respond","reason":"BadTopic"}}"#,
            #"{"match":{"priority":10},"action":{"type":"respond","reason":"ServiceUnavailable"}}"#,
            #"{"action":{"type":"respond","reason":"InternalServerError"}}"#)
        XCTAssertEqual(
            F.statuses(engine, [F.context(topic: "other"), F.context(), F.context(priority: 5)]), [400, 503, 500])
        XCTAssertEqual(engine.rules().map(\.fired), [1, 1, 1])
        XCTAssertTrue(engine.remove(id: "f2"))
        XCTAssertEqual(F.statuses(engine, [F.context()]), [500])
    }

    func testIdsAssignedAndNeverReused() throws {
        let engine = FaultEngine()
        XCTAssertEqual(try engine.add(FaultRule(action: .noResponse)).id, "f1")
        XCTAssertEqual(try engine.add(FaultRule(id: "f3", action: .noResponse)).id, "f3")
        XCTAssertEqual(try engine.add(FaultRule(action: .noResponse)).id, "f2")
        XCTAssertEqual(try engine.add(FaultRule(action: .noResponse)).id, "f4", "f3 is taken")
        XCTAssertThrowsError(try engine.add(FaultRule(id: "f3", action: .noResponse))) { error in
            XCTAssertEqual("\(error)", #"id: "f3" is already in use"#)
        }
        engine.removeAll()
        XCTAssertEqual(try engine.add(FaultRule(action: .noResponse)).id, "f5")
        XCTAssertEqual(engine.rules().map { $0.rule.id }, ["f5"])
    }

    func testAddContentsOfIsAllOrNothing() {
        let engine = FaultEngine()
        let good = FaultRule(action: .noResponse)
        let bad = FaultRule(action: .respond(FaultResponse(status: 200, reason: .badTopic)))
        XCTAssertThrowsError(try engine.add(contentsOf: [good, bad])) { error in
            XCTAssertEqual("\(error)", "[1].action.status: must be 400-599, got 200")
        }
        XCTAssertEqual(engine.rules().count, 0)
        XCTAssertThrowsError(
            try engine.add(contentsOf: [
                FaultRule(id: "a", action: .noResponse), FaultRule(id: "a", action: .noResponse),
            ])
        ) { error in
            XCTAssertEqual("\(error)", #"[1].id: "a" is already in use"#)
        }
        XCTAssertEqual(try engine.add(contentsOf: [good, good]).map(\.id), ["f1", "f2"])
    }

    func testRemoval() {
        let engine = F.engine(#"{"action":{"type":"noResponse"}}"#)
        XCTAssertTrue(engine.isArmed)
        XCTAssertFalse(engine.remove(id: "nope"))
        XCTAssertTrue(engine.remove(id: "f1"))
        XCTAssertFalse(engine.remove(id: "f1"))
        XCTAssertFalse(engine.isArmed)
        XCTAssertNil(engine.evaluate(F.context()))
    }

    func testCounters() {
        let engine = F.engine(
            #"{"match":{"topic":"A"},"action":{"type":"sequence","steps":["pass",{"type":"noResponse"},"pass","pass"]}}"#
        )
        _ = F.statuses(
            engine, [F.context(topic: "A"), F.context(topic: "B"), F.context(topic: "A"), F.context(topic: "A")])
        let status = engine.rules()[0]
        XCTAssertEqual(status.matched, 3)
        XCTAssertEqual(status.fired, 1)
        XCTAssertFalse(status.spent)
    }

    func testSickConnectionAffectsOnlyItsConnection() {
        let engine = F.engine(
            #"{"match":{"nthConnection":2},"action":{"type":"sickConnection","reason":"InternalServerError"}}"#)
        let first = F.context(connection: 1), sick = F.context(connection: 2), third = F.context(connection: 3)
        // Later streams of connection 2 fail whatever they carry; other connections succeed.
        let otherPush = F.context(topic: "com.example.other", connection: 2, headers: [])
        XCTAssertEqual(
            F.statuses(engine, [first, sick, first, otherPush, third, sick]), [nil, 500, nil, 500, nil, 500])
        let decision = engine.evaluate(otherPush)
        XCTAssertEqual(decision?.description, "rule f1: sick connection 2: respond 500 InternalServerError")
        XCTAssertEqual(decision?.action, .respond(FaultResponse(reason: .internalServerError)))
        let status = engine.rules()[0]
        XCTAssertEqual(status.sickConnections, [2])
        XCTAssertEqual(
            [status.matched, status.fired], [1, 4], "matched once (nthConnection); the rest were follow-ups")
        engine.connectionClosed(id: 2)
        XCTAssertEqual(engine.rules()[0].sickConnections, [])
    }

    func testSickConnectionOnceStaysSickAfterTheRuleIsSpent() {
        let engine = F.engine(
            #"{"lifetime":{"times":1},"action":{"type":"sickConnection","status":503,"reason":"ServiceUnavailable"}}"#)
        let one = F.context(connection: 1), two = F.context(connection: 2)
        XCTAssertEqual(F.statuses(engine, [one, two, one, two, one]), [503, nil, 503, nil, 503])
        XCTAssertTrue(engine.rules()[0].spent)
        XCTAssertTrue(engine.isArmed, "a sick connection keeps the engine armed")
        XCTAssertTrue(engine.remove(id: "f1"))
        XCTAssertEqual(F.statuses(engine, [one]), [nil], "removing the rule heals its connections")
        XCTAssertFalse(engine.isArmed)
    }

    func testSickCheckComesBeforeRules() {
        let engine = F.engine(
            #"{"match":{"connection":1},"action":{"type":"sickConnection","reason":"InternalServerError"}}"#,
            #"{"action":{"type":"respond","reason":"BadTopic"}}"#)
        XCTAssertEqual(
            F.statuses(engine, [F.context(connection: 2), F.context(connection: 1), F.context(connection: 1)]),
            [400, 500, 500])
        XCTAssertEqual(engine.rules()[1].fired, 1)
    }

    func testUnregisteredTimestampDefaultsToNow() {
        let engine = F.engine(#"{"action":{"type":"respond","reason":"Unregistered"}}"#)
        XCTAssertEqual(
            engine.evaluate(F.context(now: 1_700_000_123_456))?.action,
            .respond(FaultResponse(status: 410, reason: .unregistered, timestamp: 1_700_000_123_456)))
        let fixed = F.engine(
            #"{"action":{"type":"respond","status":410,"reason":"Unregistered","timestamp":1600000000000}}"#)
        XCTAssertEqual(
            fixed.evaluate(F.context())?.description, "rule f1: respond 410 Unregistered timestamp 1600000000000")
    }

    func testDelayChainIsKeptAndResolved() {
        let engine = F.engine(
            #"{"action":{"type":"delay","ms":1500,"then":{"type":"sickConnection","reason":"ExpiredToken"}}}"#,
            #"{"match":{"connection":9},"action":{"type":"delay","ms":20}}"#)
        let decision = engine.evaluate(F.context(connection: 4, now: 42))
        XCTAssertEqual(
            decision?.action,
            .delay(milliseconds: 1500, then: .respond(FaultResponse(reason: .expiredToken, timestamp: 42))))
        XCTAssertEqual(
            decision?.description,
            "rule f1: sick connection 4: delay 1500 ms, then respond 410 ExpiredToken timestamp 42")
        XCTAssertEqual(engine.rules()[0].sickConnections, [4])
        XCTAssertTrue(engine.remove(id: "f1"))
        XCTAssertEqual(
            engine.evaluate(F.context(connection: 9))?.description, "rule f2: delay 20 ms, then answer normally")
    }

    func testDecisionDescriptions() throws {
        let rows: [(String, String)] = [
            (#"{"type":"respond","reason":"ServiceUnavailable"}"#, "respond 503 ServiceUnavailable"),
            (#"{"type":"noResponse"}"#, "no response"),
            (#"{"type":"resetStream","errorCode":7}"#, "RST_STREAM REFUSED_STREAM (7)"),
            (
                #"{"type":"goaway","lastStreamId":0,"reason":"BadCertificateEnvironment","secondBareGoaway":true}"#,
                "GOAWAY NO_ERROR (0) last-stream-id 0 reason BadCertificateEnvironment + bare GOAWAY, close after 0 ms"
            ),
            (
                #"{"type":"goaway","errorCode":"ENHANCE_YOUR_CALM","keepOpen":true,"when":"after-response"}"#,
                "GOAWAY ENHANCE_YOUR_CALM (11), keep open, after the response"
            ),
            (#"{"type":"close","when":"after-response"}"#, "close (TCP FIN) after-response"),
            (#"{"type":"reset"}"#, "reset (TCP RST) before-response"),
            (#"{"type":"settings","maxConcurrentStreams":1}"#, "SETTINGS MAX_CONCURRENT_STREAMS=1"),
        ]
        for (action, expected) in rows {
            let engine = F.engine(#"{"action":\#(action)}"#)
            XCTAssertEqual(engine.evaluate(F.context())?.description, "rule f1: " + expected, action)
        }
    }

    func testGoawayDebugBytes() {
        XCTAssertEqual(
            String(decoding: GoawayFault(reason: "Shutdown").debugBytes, as: UTF8.self), #"{"reason":"Shutdown"}"#)
        XCTAssertEqual(String(decoding: GoawayFault(reason: #"a"b"#).debugBytes, as: UTF8.self), #"{"reason":"a\"b"}"#)
        XCTAssertEqual(
            String(
                decoding: GoawayFault(debugData: "Maximum active streams violated for this endpoint.").debugBytes,
                as: UTF8.self), "Maximum active streams violated for this endpoint.")
        XCTAssertEqual(GoawayFault().debugBytes, [])
        XCTAssertEqual(GoawayFault(closeAfterMs: 2500).closeAfterSeconds, 2.5)
        XCTAssertNil(GoawayFault(keepOpen: true).closeAfterSeconds)
    }

    func testConcurrentEvaluationCountsEveryRequest() {
        let engine = F.engine(#"{"match":{"everyKth":2},"action":{"type":"noResponse"}}"#)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for _ in 0..<500 { _ = engine.evaluate(F.context(connection: UInt64(worker + 1))) }
        }
        XCTAssertEqual(engine.rules()[0].fired, 2000)
    }

    func testContextFromVerdict() {
        let verdict = ValidationResult(
            deviceToken: F.token, topic: "t", pushTypeSent: "voip", pushType: .voip, priority: 5)
        let request = HTTP2Request(
            method: "POST", path: "/3/device/\(F.token)", headers: [HeaderField(name: "a", value: "b")], body: [1])
        let connection = PushOrigin(id: 12, listener: "prod", environment: .production, peer: "127.0.0.1:1")
        let context = FaultContext(
            verdict: verdict, request: request, connection: connection,
            identity: CredentialIdentity(kind: "token", keyID: "K", teamID: "T", verdict: "verified"),
            nowMilliseconds: 5)
        XCTAssertEqual(context.token, F.token)
        XCTAssertEqual(context.topic, "t")
        XCTAssertEqual(context.pushType, .voip)
        XCTAssertEqual(context.priority, 5)
        XCTAssertEqual(context.listener, "prod")
        XCTAssertEqual(context.environment, .production)
        XCTAssertEqual([context.keyID, context.teamID], ["K", "T"])
        XCTAssertEqual([context.connectionID, context.connectionOrdinal], [12, 12])
        XCTAssertEqual(context.headers, request.headers)
        XCTAssertEqual(context.payload, [1])
    }
}
