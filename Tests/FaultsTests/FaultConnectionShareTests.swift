import XCTest

@testable import APNsCore
@testable import Faults
@testable import TestFixtures

/// `connectionShare`: a seeded share of connections, each connection (reconnections too) drawn anew.
final class FaultConnectionShareTests: XCTestCase {
    typealias F = FaultFixture

    /// Which of connections 1...count the rule takes (one push each).
    private func chosen(seed: Int, share: Double = 0.25, count: UInt64 = 400) -> [UInt64] {
        let engine = F.engine(
            #"{"match":{"connectionShare":\#(share),"seed":\#(seed)},"action":{"type":"respond","status":500}}"#)
        return (1...count).filter { engine.evaluate(F.context(connection: $0)) != nil }
    }

    func testAboutTheShareReproducibly() {
        let picked = chosen(seed: 4)
        XCTAssertTrue((70...130).contains(picked.count), "about 100 of 400: \(picked.count)")
        XCTAssertEqual(picked, chosen(seed: 4))
        XCTAssertNotEqual(picked, chosen(seed: 5))
        XCTAssertEqual(chosen(seed: 4, share: 0).count, 0)
        XCTAssertEqual(chosen(seed: 4, share: 1).count, 400)
    }

    func testAConnectionStaysInOrOut() throws {
        let engine = F.engine(
            #"{"match":{"connectionShare":0.5,"seed":1},"action":{"type":"respond","status":500}}"#)
        for connection in UInt64(1)...20 {
            let outcomes = Set((0..<10).map { _ in engine.evaluate(F.context(connection: connection)) != nil })
            XCTAssertEqual(outcomes.count, 1, "connection \(connection) is in for all its pushes or none")
        }
    }

    func testSeedAssignedAndValidated() throws {
        let rule = try FaultEngine().add(
            XCTUnwrap(F.rule(#"{"match":{"connectionShare":0.25},"action":{"type":"noResponse"}}"#)))
        XCTAssertNotNil(rule.match.seed)
        for match in [#"{"connectionShare":1.5}"#, #"{"connectionShare":-0.1}"#] {
            let json = #"{"match":\#(match),"action":{"type":"noResponse"}}"#
            XCTAssertThrowsError(try FaultRule.decode(json: Array(json.utf8)), json)
        }
        let withSeed = #"{"match":{"seed":3,"connectionShare":0.5},"action":{"type":"noResponse"}}"#
        XCTAssertNoThrow(try FaultRule.decode(json: Array(withSeed.utf8)))
    }
}
