import JSONInput
import XCTest

@testable import Faults
@testable import JSONSupport

/// The `rolling-restart` scenario's parameters and seeded moments.
final class RollingRestartTests: XCTestCase {
    func testMomentsAreSeededAndWithinTheWindow() throws {
        let restart = try RollingRestart(parameters: ["windowMs": .int(10_000), "seed": .int(7)])
        let moments = (UInt64(1)...200).map { restart.delayMilliseconds(forConnection: $0) }
        XCTAssertTrue(moments.allSatisfy { (0...10_000).contains($0) }, "\(moments)")
        XCTAssertLessThan(moments.min() ?? .max, 500)
        XCTAssertGreaterThan(moments.max() ?? 0, 9_500)
        // The same seed: the same moment for the same connection, run after run.
        let again = try RollingRestart(parameters: ["windowMs": .int(10_000), "seed": .int(7)])
        XCTAssertEqual(moments, (UInt64(1)...200).map { again.delayMilliseconds(forConnection: $0) })
        let other = RollingRestart(windowMilliseconds: 10_000, seed: 8)
        XCTAssertNotEqual(moments, (UInt64(1)...200).map { other.delayMilliseconds(forConnection: $0) })
        XCTAssertEqual(RollingRestart(windowMilliseconds: 0, seed: 1).delayMilliseconds(forConnection: 3), 0)
    }

    func testDefaultsAndErrors() throws {
        let defaulted = try RollingRestart(parameters: [:])
        XCTAssertEqual(defaulted.windowMilliseconds, 10_000)
        XCTAssertEqual(defaulted.drainMilliseconds, 5_000)
        XCTAssertLessThan(defaulted.seed, 1 << 53)
        for (parameters, message) in [
            (["windowMs": JSONNode.int(-1)], "parameters.windowMs: expected an integer from 0 to 86400000, got -1"),
            (["drainMs": .string("5")], #"parameters.drainMs: expected an integer from 1 to 86400000, got "5""#),
            (["drainMs": .int(0)], #"parameters.drainMs: expected an integer from 1 to 86400000, got 0"#),
            (
                ["percent": .int(5)],
                "parameters.percent: unknown parameter of rolling-restart; valid: windowMs, drainMs, seed"
            ),
            (["seed": .int(-1)], "parameters.seed: expected an integer from 0 to 18446744073709551615, got -1"),
            (["seed": .double(2.5)], "parameters.seed: expected an integer from 0 to 18446744073709551615, got 2.5"),
        ] {
            XCTAssertThrowsError(try RollingRestart(parameters: parameters)) { XCTAssertEqual("\($0)", message) }
        }
    }

    /// A seed takes the whole unsigned 64-bit range, as a rule's seeds do (one range for all seeds).
    func testEveryUnsigned64BitSeedIsTaken() throws {
        XCTAssertEqual(try RollingRestart(parameters: ["seed": .uint(UInt64.max)]).seed, UInt64.max)
        XCTAssertEqual(try RollingRestart(parameters: ["seed": .uint(1 << 63)]).seed, 1 << 63)
        XCTAssertEqual(try RollingRestart(parameters: ["seed": .int(0)]).seed, 0)
        XCTAssertEqual(try RollingRestart(parameters: ["seed": .double(1e3)]).seed, 1000)
        XCTAssertEqual(UInt64(seedNode: .uint(UInt64.max)), UInt64.max)
        XCTAssertNil(UInt64(seedNode: .int(-1)))
        XCTAssertNil(UInt64(seedNode: .string("7")))
    }
}
