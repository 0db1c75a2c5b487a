import XCTest

@testable import APNsCore
@testable import Faults
@testable import TestFixtures

/// `probabilityRamp`: a probability rising linearly from when the rule is added.
final class FaultRampTests: XCTestCase {
    typealias F = FaultFixture

    func testLinearProbability() {
        let ramp = FaultRamp(from: 0.1, to: 0.5, durationMs: 1000)
        XCTAssertEqual(ramp.probability(elapsedMilliseconds: -5), 0.1, accuracy: 1e-12)
        XCTAssertEqual(ramp.probability(elapsedMilliseconds: 0), 0.1, accuracy: 1e-12)
        XCTAssertEqual(ramp.probability(elapsedMilliseconds: 500), 0.3, accuracy: 1e-12)
        XCTAssertEqual(ramp.probability(elapsedMilliseconds: 5000), 0.5, accuracy: 1e-12)
    }

    /// Faults among 1000 pushes at `offset` ms after the rule was added.
    private func hits(_ engine: FaultEngine, at offset: Int64) -> [Bool] {
        (0..<1000).map { _ in engine.evaluate(F.context(now: F.now + offset)) != nil }
    }

    private func rampEngine(seed: Int = 9) -> FaultEngine {
        F.engine(
            #"{"match":{"probabilityRamp":{"from":0,"to":0.8,"durationMs":10000},"seed":\#(seed)},"action":{"type":"respond","status":503}}"#
        )
    }

    func testFaultsGrowOverTheRampAndReplay() {
        let engine = rampEngine()
        let counts = [0, 5000, 10000, 20000].map { hits(engine, at: Int64($0)).filter { $0 }.count }
        XCTAssertEqual(counts[0], 0)
        XCTAssertTrue((340...460).contains(counts[1]), "about 40%: \(counts)")
        XCTAssertTrue((740...860).contains(counts[2]), "about 80%: \(counts)")
        XCTAssertTrue((740...860).contains(counts[3]), "stays at 80%: \(counts)")
        let first = rampEngine()
        let second = rampEngine()
        XCTAssertEqual(hits(first, at: 3000), hits(second, at: 3000))
        XCTAssertNotEqual(hits(rampEngine(seed: 10), at: 3000), hits(rampEngine(seed: 9), at: 3000))
    }

    func testStartShownAndValidated() throws {
        let engine = rampEngine()
        XCTAssertEqual(engine.rules().first?.rampStartedAt, F.now)
        let json = String(decoding: try JSONEncoder().encode(engine.rules()[0]), as: UTF8.self)
        XCTAssertTrue(json.contains(#""rampStartedAt":1700000000000"#), json)
        for (match, field) in [
            (#"{"probabilityRamp":{"from":0,"to":1.5,"durationMs":10}}"#, "to"),
            (#"{"probabilityRamp":{"from":0,"to":1,"durationMs":0}}"#, "durationMs"),
            (#"{"probabilityRamp":{"from":0,"to":1,"durationMs":10},"probability":0.5}"#, "probabilityRamp"),
            (#"{"probabilityRamp":{"from":0,"to":1}}"#, "durationMs"),
        ] {
            let rule = #"{"match":\#(match),"action":{"type":"noResponse"}}"#
            XCTAssertThrowsError(try FaultRule.decode(json: Array(rule.utf8)), rule) { error in
                XCTAssertTrue("\(error)".contains(field), "\(rule): \(error)")
            }
        }
    }

    /// A match with a ramp and a connection share is written back as read.
    func testRampAndShareRoundTrip() throws {
        let json =
            #"{"action":{"type":"noResponse"},"lifetime":"unlimited","#
            + #""match":{"connectionShare":0.25,"probabilityRamp":{"durationMs":60000,"from":0,"to":0.5},"seed":7}}"#
        let rule = try FaultRule.decode(json: Array(json.utf8))
        XCTAssertEqual(rule.match.probabilityRamp, FaultRamp(from: 0, to: 0.5, durationMs: 60000))
        XCTAssertEqual(rule.match.connectionShare, 0.25)
        XCTAssertEqual(try F.canonical(rule), json)
    }
}
