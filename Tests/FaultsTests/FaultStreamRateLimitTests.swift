import XCTest

@testable import APNsCore
@testable import Faults
@testable import TestFixtures

/// `streamRateLimit`: RST_STREAM ENHANCE_YOUR_CALM over a per-connection rate, then GOAWAY.
final class FaultStreamRateLimitTests: XCTestCase {
    typealias F = FaultFixture

    func testRefusesOverRateThenGoesAway() throws {
        let engine = F.engine(#"{"action":{"type":"streamRateLimit","perSecond":2,"goawayAfter":2}}"#)
        let actions = (0..<6).map { _ in engine.evaluate(F.context(connection: 1))?.action }
        XCTAssertEqual(
            actions,
            [
                nil, nil, .resetStream(.enhanceYourCalm), .resetStream(.enhanceYourCalm),
                .goaway(GoawayFault(errorCode: .enhanceYourCalm)), .goaway(GoawayFault(errorCode: .enhanceYourCalm)),
            ])
        // Another connection has its own bucket.
        XCTAssertNil(engine.evaluate(F.context(connection: 2)))
        XCTAssertNil(engine.evaluate(F.context(connection: 2)))
        let third = try XCTUnwrap(engine.evaluate(F.context(connection: 2)))
        XCTAssertEqual(third.ruleActionType, "streamRateLimit")
        XCTAssertTrue(third.description.contains("refused stream 1 on connection 2"), third.description)
    }

    func testRefillsWithTimeAndForgetsClosedConnections() {
        let engine = F.engine(#"{"action":{"type":"streamRateLimit","perSecond":1}}"#)
        XCTAssertNil(engine.evaluate(F.context()))
        XCTAssertEqual(engine.evaluate(F.context())?.action, .resetStream(.enhanceYourCalm))
        XCTAssertNil(engine.evaluate(F.context(now: F.now + 1000)))
        XCTAssertEqual(engine.evaluate(F.context(now: F.now + 1000))?.action, .resetStream(.enhanceYourCalm))
        engine.connectionClosed(id: 1)
        XCTAssertNil(engine.evaluate(F.context(now: F.now + 1000)), "a new bucket for a reused id")
    }

    func testWithoutGoawayAfterAlwaysRefuses() {
        let engine = F.engine(#"{"action":{"type":"streamRateLimit","perSecond":1,"burst":1}}"#)
        let actions = (0..<20).compactMap { _ in engine.evaluate(F.context())?.action }
        XCTAssertEqual(actions, Array(repeating: .resetStream(.enhanceYourCalm), count: 19))
    }

    func testValidation() {
        for (json, field) in [
            (#"{"action":{"type":"streamRateLimit","perSecond":0}}"#, "perSecond"),
            (#"{"action":{"type":"streamRateLimit","perSecond":1,"burst":0}}"#, "burst"),
            (#"{"action":{"type":"streamRateLimit","perSecond":1,"goawayAfter":-1}}"#, "goawayAfter"),
            (#"{"action":{"type":"sequence","steps":[{"type":"streamRateLimit","perSecond":1}]}}"#, "type"),
        ] {
            XCTAssertThrowsError(try FaultRule.decode(json: Array(json.utf8)), json) { error in
                XCTAssertTrue("\(error)".contains(field), "\(json): \(error)")
            }
        }
    }
}
