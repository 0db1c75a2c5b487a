import APNsCore
import Foundation
import XCTest

@testable import Faults
@testable import TestFixtures

/// `match.protocol` (docs/legacy-binary.md §8): a rule without it is HTTP/2's only; one with
/// `binary` takes binary notifications only, and only actions with a binary meaning.
final class FaultMatchProtocolTests: XCTestCase {
    typealias F = FaultFixture

    private func binary(_ context: FaultContext = F.context()) -> FaultContext {
        var context = context
        context.transport = .binary
        return context
    }

    func testARuleWithoutProtocolIsHTTP2Only() throws {
        let engine = FaultEngine()
        _ = try engine.add(XCTUnwrap(F.rule(#"{"action":{"type":"respond","reason":"BadDeviceToken"}}"#)))
        XCTAssertNotNil(engine.evaluate(F.context()))
        XCTAssertNil(engine.evaluate(binary()), "binary notifications pass an HTTP/2 rule by")
    }

    func testABinaryRuleTakesBinaryNotificationsOnly() throws {
        let rule = try XCTUnwrap(
            F.rule(#"{"match":{"protocol":"binary"},"action":{"type":"respond","reason":"BadDeviceToken"}}"#))
        XCTAssertEqual(rule.match.transport, .binary)
        let json = String(decoding: try JSONEncoder().encode(rule.match), as: UTF8.self)
        XCTAssertTrue(json.contains(#""protocol":"binary""#), json)
        let engine = FaultEngine()
        _ = try engine.add(rule)
        XCTAssertNil(engine.evaluate(F.context()))
        XCTAssertNotNil(engine.evaluate(binary()))
        XCTAssertThrowsError(
            try FaultRule.decode(json: Array(#"{"match":{"protocol":"h3"},"action":{"type":"close"}}"#.utf8)))
    }

    /// respond, close, reset and delay-then-one-of-them have a binary meaning; the rest are refused
    /// on a binary rule, naming the field and why.
    func testActionsWithoutABinaryMeaningAreRefused() {
        let accepted = [
            #"{"type":"respond","reason":"Shutdown"}"#, #"{"type":"close"}"#, #"{"type":"reset"}"#,
            #"{"type":"delay","ms":5,"then":{"type":"close"}}"#,
        ]
        for action in accepted {
            XCTAssertNoThrow(
                try FaultRule.decode(json: Array(#"{"match":{"protocol":"binary"},"action":\#(action)}"#.utf8)), action)
        }
        let refused = [
            #"{"type":"goaway"}"#, #"{"type":"noResponse"}"#, #"{"type":"delay","ms":5}"#,
            #"{"type":"delay","ms":5,"then":{"type":"goaway"}}"#, #"{"type":"blackhole"}"#,
        ]
        for action in refused {
            XCTAssertThrowsError(
                try FaultRule.decode(json: Array(#"{"match":{"protocol":"binary"},"action":\#(action)}"#.utf8)), action
            ) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("action.type") && text.contains("protocol binary"), text)
            }
            XCTAssertNoThrow(try FaultRule.decode(json: Array(#"{"action":\#(action)}"#.utf8)), "HTTP/2: \(action)")
        }
    }
}
