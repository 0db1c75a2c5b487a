import XCTest

@testable import APNsCore
@testable import Faults
@testable import TestFixtures

/// Seeded delay distributions of `delay` (`FaultLatency`): JSON, ranges, reproducibility.
final class FaultLatencyTests: XCTestCase {
    typealias F = FaultFixture

    /// The milliseconds each of `count` pushes waits under `json`.
    private func delays(_ json: String, count: Int = 200) -> [Int64] {
        let engine = F.engine(json)
        return (0..<count).map { _ in
            guard case .delay(let ms, _) = engine.evaluate(F.context())?.action else { return -1 }
            return ms
        }
    }

    func testUniformStaysInRangeAndCoversIt() {
        let drawn = delays(#"{"action":{"type":"delay","minMs":200,"maxMs":800,"seed":7}}"#)
        XCTAssertTrue(drawn.allSatisfy { (200...800).contains($0) }, "\(drawn)")
        XCTAssertLessThan(drawn.min() ?? 0, 260)
        XCTAssertGreaterThan(drawn.max() ?? 0, 740)
        XCTAssertGreaterThan(Set(drawn).count, 100, "many distinct values")
    }

    func testSameSeedSameDelaysDifferentSeedOthers() {
        let json = #"{"action":{"type":"delay","minMs":0,"maxMs":1000,"seed":11}}"#
        XCTAssertEqual(delays(json), delays(json))
        XCTAssertNotEqual(delays(json), delays(json.replacingOccurrences(of: "11", with: "12")))
        let logNormal = #"{"action":{"type":"delay","medianMs":300,"spread":0.5,"seed":3}}"#
        XCTAssertEqual(delays(logNormal), delays(logNormal))
    }

    func testLogNormalMedianAndSpread() {
        let drawn = delays(#"{"action":{"type":"delay","medianMs":300,"spread":0.5,"seed":5}}"#, count: 2000)
            .sorted()
        let median = drawn[drawn.count / 2]
        XCTAssertTrue((270...330).contains(median), "median about 300, got \(median)")
        // e^0.5 ≈ 1.65: about 16% above 1.65 × the median.
        let above = drawn.filter { $0 > 495 }.count
        XCTAssertTrue((220...420).contains(above), "about 320 of 2000 above 495 ms, got \(above)")
        XCTAssertEqual(Set(delays(#"{"action":{"type":"delay","medianMs":300,"spread":0,"seed":5}}"#)), [300])
    }

    func testThenAndRecordDescription() throws {
        let engine = F.engine(
            #"{"action":{"type":"delay","minMs":5,"maxMs":5,"seed":1,"then":{"type":"resetStream","errorCode":"CANCEL"}}}"#
        )
        let decision = try XCTUnwrap(engine.evaluate(F.context()))
        XCTAssertEqual(decision.action, .delay(milliseconds: 5, then: .resetStream(.cancel)))
        XCTAssertEqual(decision.ruleActionType, "delay")
        XCTAssertEqual(decision.description, "rule f1: delay 5 ms, then RST_STREAM CANCEL (8)")
    }

    func testSeedAssignedWhenAbsentAndShown() throws {
        let engine = FaultEngine()
        let rule = try engine.add(XCTUnwrap(F.rule(#"{"action":{"type":"delay","minMs":1,"maxMs":9}}"#)))
        guard case .randomDelay(let latency, _) = rule.action else { return XCTFail("\(rule.action)") }
        XCTAssertNotNil(latency.seed)
        XCTAssertLessThan(latency.seed ?? .max, 1 << 53)
        let json = String(decoding: try JSONEncoder().encode(rule.action), as: UTF8.self)
        XCTAssertTrue(json.contains(#""seed":"#), json)
        XCTAssertEqual(try FaultAction.decode(json), rule.action)
    }

    func testSequenceStepsDraw() throws {
        let engine = F.engine(
            #"{"action":{"type":"sequence","steps":[{"type":"delay","minMs":10,"maxMs":20,"seed":2},"pass"]}}"#)
        guard case .delay(let ms, nil) = engine.evaluate(F.context())?.action else { return XCTFail() }
        XCTAssertTrue((10...20).contains(ms))
    }

    func testInvalidLatencies() {
        for (json, field) in [
            (#"{"type":"delay","minMs":10,"maxMs":5}"#, "maxMs"),
            (#"{"type":"delay","minMs":-1,"maxMs":5}"#, "minMs"),
            (#"{"type":"delay","minMs":1}"#, "maxMs"),
            (#"{"type":"delay","ms":5,"minMs":1,"maxMs":3}"#, "ms"),
            (#"{"type":"delay","minMs":1,"maxMs":3,"medianMs":2,"spread":1}"#, "medianMs"),
            (#"{"type":"delay","medianMs":0,"spread":1}"#, "medianMs"),
            (#"{"type":"delay","medianMs":10,"spread":-1}"#, "spread"),
            (#"{"type":"delay","ms":10,"seed":1}"#, "seed"),
        ] {
            XCTAssertThrowsError(try FaultAction.decode(json), json) { error in
                XCTAssertTrue("\(error)".contains(field), "\(json): \(error)")
            }
        }
    }
}

extension FaultAction {
    /// Decodes an action alone, through a rule.
    fileprivate static func decode(_ json: String) throws -> FaultAction {
        try FaultRule.decode(json: Array(#"{"action":\#(json)}"#.utf8)).action
    }
}
