import APNsCore
import XCTest

@testable import TestFixtures

/// `rateLimit`: a token bucket per device token, 429 TooManyRequests above it.
final class FaultRateLimitTests: XCTestCase {
    typealias F = FaultFixture

    func testBucketPerToken() {
        let engine = F.engine(#"{"action":{"type":"rateLimit","perSecond":2}}"#)
        let t = F.now
        let a = { (ms: Int64) in F.context(now: t + ms) }
        let b = { (ms: Int64) in F.context(token: F.otherToken, now: t + ms) }
        // Burst 2 (perSecond rounded up); one token back every 500 ms, never more than 2.
        XCTAssertEqual(
            F.statuses(
                engine, [a(0), a(0), a(0), b(0), b(0), b(1), a(499), a(500), a(500), a(1500), a(1500), a(1500)]),
            [nil, nil, 429, nil, nil, 429, 429, nil, 429, nil, nil, 429])
        let status = engine.rules()[0]
        XCTAssertEqual(status.matched, 12)
        XCTAssertEqual(status.fired, 5)
        XCTAssertEqual(
            engine.evaluate(a(1500))?.description,
            "rule f1 over rate limit 2/s per token (burst 2): respond 429 TooManyRequests")
    }

    func testBurstAndFractionalRate() {
        let engine = F.engine(#"{"action":{"type":"rateLimit","perSecond":0.5,"burst":3}}"#)
        let at = { (ms: Int64) in F.context(now: F.now + ms) }
        XCTAssertEqual(
            F.statuses(engine, [at(0), at(0), at(0), at(0), at(1999), at(2000), at(2000)]),
            [nil, nil, nil, 429, 429, nil, 429])
    }

    func testPushesWithoutTokenAndUnderTheRatePassToLaterRules() {
        let engine = F.engine(
            #"{"action":{"type":"rateLimit","perSecond":1}}"#,
            #"{"match":{"priority":5},"action":{"type":"respond","reason":"BadPriority"}}"#)
        XCTAssertEqual(
            F.statuses(engine, [F.context(token: nil), F.context(priority: 5), F.context(priority: 5)]),
            [nil, 400, 429])
    }

    func testCaseOfTokenDoesNotMatter() {
        let engine = F.engine(#"{"action":{"type":"rateLimit","perSecond":1}}"#)
        XCTAssertEqual(
            F.statuses(engine, [F.context(token: F.token), F.context(token: F.token.uppercased())]), [nil, 429])
    }
}
