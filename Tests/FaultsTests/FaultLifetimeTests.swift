import APNsCore
import JSONInput
import XCTest

@testable import Faults
@testable import TestFixtures

/// `unlimited`, `times`, `timesPerConnection`, `until`, and sequences running out.
final class FaultLifetimeTests: XCTestCase {
    typealias F = FaultFixture

    func testUnlimitedIsTheDefault() {
        let engine = F.engine(#"{"action":{"type":"respond","reason":"ServiceUnavailable"}}"#)
        XCTAssertEqual(engine.rules()[0].rule.lifetime, .unlimited)
        XCTAssertEqual(F.statuses(engine, Array(repeating: F.context(), count: 100)).compactMap { $0 }.count, 100)
        XCTAssertFalse(engine.rules()[0].spent)
    }

    func testTimes() {
        let engine = F.engine(#"{"lifetime":{"times":2},"action":{"type":"respond","reason":"ServiceUnavailable"}}"#)
        XCTAssertEqual(F.statuses(engine, Array(repeating: F.context(), count: 4)), [503, 503, nil, nil])
        let status = engine.rules()[0]
        XCTAssertEqual([status.matched, status.fired], [2, 2])
        XCTAssertTrue(status.spent)
        XCTAssertFalse(engine.isArmed, "a spent rule costs nothing on the hot path")
    }

    func testTimesPerConnection() {
        let engine = F.engine(#"{"lifetime":{"timesPerConnection":1},"action":{"type":"goaway","reason":"Shutdown"}}"#)
        let one = F.context(connection: 1), two = F.context(connection: 2)
        XCTAssertEqual(F.statuses(engine, [one, one, two, two, one]), [0, nil, 0, nil, nil])
        engine.connectionClosed(id: 1)
        XCTAssertEqual(F.statuses(engine, [one]), [0], "the closed connection's count is forgotten")
        XCTAssertFalse(engine.rules()[0].spent)
    }

    func testUntil() {
        let clock = Clock(F.now)
        let engine = FaultEngine(clock: { clock.now })
        XCTAssertNoThrow(
            try engine.add(
                F.rule(
                    #"{"lifetime":{"until":1700000001000},"action":{"type":"respond","reason":"ServiceUnavailable"}}"#)!
            ))
        XCTAssertEqual(engine.rules()[0].rule.lifetime, .until(ISO8601Timestamp(clamping: F.now + 1000)))
        XCTAssertEqual(F.statuses(engine, [F.context(now: F.now), F.context(now: F.now + 999)]), [503, 503])
        XCTAssertFalse(engine.rules()[0].spent)
        clock.now = F.now + 1000
        XCTAssertTrue(engine.rules()[0].spent, "listed as spent once the clock passes until, before any request")
        XCTAssertEqual(F.statuses(engine, [F.context(now: F.now + 1000)]), [nil])
        XCTAssertFalse(engine.isArmed)
    }

    func testSequence503503ThenPass() {
        let engine = F.engine(
            #"""
            {"action":{"type":"sequence","steps":[
              {"type":"respond","status":503,"reason":"ServiceUnavailable"},
              {"type":"respond","status":503,"reason":"ServiceUnavailable"},
              "pass"]}}
            """#)
        let decisions = (0..<5).map { _ in engine.evaluate(F.context()) }
        XCTAssertEqual(
            decisions.map { $0?.description },
            [
                "rule f1 step 1/3: respond 503 ServiceUnavailable",
                "rule f1 step 2/3: respond 503 ServiceUnavailable",
                nil, nil, nil,
            ])
        let status = engine.rules()[0]
        XCTAssertEqual([status.matched, status.fired], [3, 2])
        XCTAssertTrue(status.spent)
    }

    func testPassStepLetsLaterRulesApply() {
        let engine = F.engine(
            #"{"action":{"type":"sequence","steps":["pass",{"type":"resetStream","errorCode":"REFUSED_STREAM"}]}}"#,
            #"{"action":{"type":"respond","reason":"InternalServerError"}}"#)
        let actions = (0..<3).map { _ in engine.evaluate(F.context())?.action }
        XCTAssertEqual(
            actions,
            [
                .respond(FaultResponse(reason: .internalServerError)), .resetStream(.refusedStream),
                .respond(FaultResponse(reason: .internalServerError)),
            ])
    }

    func testSequenceWithTimesEndsAtWhicheverComesFirst() {
        let engine = F.engine(
            #"{"lifetime":{"times":1},"action":{"type":"sequence","steps":[{"type":"noResponse"},{"type":"noResponse"}]}}"#
        )
        XCTAssertEqual(F.statuses(engine, [F.context(), F.context()]), [0, nil])
    }

    /// A settable clock for `FaultEngine(clock:)`.
    final class Clock: @unchecked Sendable {
        var now: Int64
        init(_ now: Int64) { self.now = now }
    }
}
