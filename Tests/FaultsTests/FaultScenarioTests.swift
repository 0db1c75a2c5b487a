import APNsCore
import JSONInput
import XCTest

@testable import Faults
@testable import JSONSupport
@testable import TestFixtures

/// The named presets and their parameters.
final class FaultScenarioTests: XCTestCase {
    typealias F = FaultFixture

    private func engine(_ name: String, _ parameters: [String: JSONNode] = [:]) throws -> FaultEngine {
        let engine = FaultEngine(clock: { F.now })
        try engine.add(contentsOf: FaultScenario.rules(named: name, parameters: parameters, nowMilliseconds: F.now))
        return engine
    }

    func testOutage() throws {
        let forever = try engine("apns-outage")
        XCTAssertEqual(forever.evaluate(F.context())?.description, "rule f1: respond 503 ServiceUnavailable")
        XCTAssertEqual(forever.rules()[0].rule.description, "scenario apns-outage")
        let minute = try engine("apns-outage", ["durationMs": .int(60_000)])
        XCTAssertEqual(
            F.statuses(minute, [F.context(now: F.now + 59_999), F.context(now: F.now + 60_000)]), [503, nil])
    }

    func testFlakyIsReproducible() throws {
        let run = { (seed: Int64) in
            try F.statuses(
                self.engine("flaky", ["percent": .int(20), "seed": .int(seed)]),
                Array(repeating: F.context(), count: 300))
        }
        let first = try run(7)
        XCTAssertEqual(try run(7), first)
        XCTAssertNotEqual(try run(8), first)
        XCTAssertEqual(Set(first.compactMap { $0 }), [500])
        XCTAssertTrue((30...90).contains(first.compactMap { $0 }.count))
        let defaulted = try FaultScenario.rules(named: "flaky")
        XCTAssertEqual(defaulted[0].match.probability, 0.1)
    }

    /// A flaky seed takes the whole unsigned 64-bit range, as a rule's seeds do.
    func testFlakySeedTakesEveryUnsigned64BitValue() throws {
        let rules = try FaultScenario.rules(named: "flaky", parameters: ["seed": .uint(UInt64.max)])
        XCTAssertEqual(rules[0].match.seed, UInt64.max)
    }

    func testTokenExpiry() throws {
        let engine = try engine("token-expiry")
        XCTAssertEqual(F.statuses(engine, [F.context(), F.context(headers: [("apns-topic", "x")])]), [403, nil])
        XCTAssertEqual(engine.evaluate(F.context())?.action, .respond(FaultResponse(reason: .expiredProviderToken)))
    }

    func testGracefulRestartOncePerConnection() throws {
        let engine = try engine("graceful-restart", ["windowMs": .int(1000)])
        let one = F.context(connection: 1), two = F.context(connection: 2)
        let decision = engine.evaluate(one)
        guard case .goaway(let goaway)? = decision?.action else {
            return XCTFail("expected a GOAWAY, got \(String(describing: decision))")
        }
        XCTAssertEqual(goaway.errorCode, .noError)
        XCTAssertEqual(String(decoding: goaway.debugBytes, as: UTF8.self), #"{"reason":"Shutdown"}"#)
        XCTAssertNil(goaway.lastStreamID, "the highest stream processed")
        XCTAssertEqual(F.statuses(engine, [one, two, two]), [nil, 0, nil])
        XCTAssertEqual(F.statuses(engine, [F.context(connection: 3, now: F.now + 1000)]), [nil], "the window is over")
    }

    func testGracefulRestartEndsAfterASecondByDefault() throws {
        let engine = try engine("graceful-restart")
        XCTAssertEqual(F.statuses(engine, [F.context(connection: 1, now: F.now + 999)]), [0])
        XCTAssertEqual(
            F.statuses(engine, [F.context(connection: 2, now: F.now + 1000)]), [nil],
            "a reconnecting sender gets through")
    }

    func testThrottled() throws {
        let engine = try engine("throttled", ["perSecond": .int(1)])
        XCTAssertEqual(
            F.statuses(engine, [F.context(), F.context(), F.context(token: F.otherToken)]), [nil, 429, nil])
        XCTAssertEqual(
            try self.engine("throttled", ["perSecond": .double(2.5), "burst": .int(4)]).rules()[0].rule.action,
            .rateLimit(FaultRateLimit(perSecond: 2.5, burst: 4)))
    }

    func testErrors() {
        let rows: [(String, [String: JSONNode], String)] = [
            (
                "apns-outge", [:],
                #"scenario: unknown scenario "apns-outge" (did you mean "apns-outage"?); expected one of apns-outage, flaky, token-expiry, graceful-restart, throttled, rolling-restart"#
            ),
            ("flaky", ["percent": .int(101)], "parameters.percent: must be within 0 and 100, got 101"),
            ("flaky", ["percent": .string("5")], #"parameters.percent: must be within 0 and 100, got "5""#),
            ("flaky", ["pct": .int(5)], "parameters.pct: unknown parameter of flaky; valid: percent, seed"),
            (
                "flaky", ["seed": .double(1.5)],
                "parameters.seed: expected an integer from 0 to 18446744073709551615, got 1.5"
            ),
            (
                "flaky", ["seed": .int(-1)],
                "parameters.seed: expected an integer from 0 to 18446744073709551615, got -1"
            ),
            ("token-expiry", ["x": .int(1)], "parameters.x: unknown parameter of token-expiry; it takes none"),
            (
                "apns-outage", ["durationMs": .int(0)],
                "parameters.durationMs: expected an integer from 1 to 31536000000, got 0"
            ),
            (
                "throttled", [:],
                "parameters.perSecond: required: a number of pushes per second per device token, above 0"
            ),
            (
                "throttled", ["perSecond": .int(1), "burst": .int(0)],
                "parameters.burst: expected an integer from 1 to 2147483647, got 0"
            ),
        ]
        for (name, parameters, expected) in rows {
            XCTAssertThrowsError(try FaultScenario.rules(named: name, parameters: parameters)) {
                XCTAssertEqual("\($0)", expected)
            }
        }
    }

    func testEveryScenarioProducesValidRules() throws {
        for scenario in FaultScenario.allCases where scenario != .rollingRestart {
            let parameters: [String: JSONNode] = scenario == .throttled ? ["perSecond": .int(5)] : [:]
            let rules = try scenario.rules(parameters: parameters, nowMilliseconds: F.now)
            XCTAssertFalse(rules.isEmpty)
            for rule in rules { XCTAssertNoThrow(try rule.validate(), scenario.rawValue) }
        }
    }

    /// `rolling-restart` makes no rule (it acts on the open connections, from the control API).
    func testRollingRestartMakesNoRule() {
        XCTAssertThrowsError(try FaultScenario.rules(named: "rolling-restart")) { error in
            XCTAssertTrue("\(error)".hasPrefix("scenario: rolling-restart makes no rule"), "\(error)")
        }
    }
}
