import JSONInput
import XCTest

@testable import Broadcast

/// The ActivityKit payload lints (docs/broadcast.md §A4): one row per lint, plus clean payloads.
final class ActivityKitLintTests: XCTestCase {
    func lints(_ json: String) throws -> [ActivityKitLint] {
        guard case .object(let object) = try JSONNode(decoding: Array(json.utf8)) else {
            XCTFail("not an object")
            return []
        }
        return ActivityKitLint.lints(of: object)
    }

    func testRows() throws {
        let rows: [(String, [ActivityKitLint])] = [
            (#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#, []),
            (#"{"aps":{"timestamp":1.5,"event":"end"}}"#, []),
            (#"{"aps":{"timestamp":1,"event":"end","dismissal-date":2,"stale-date":3}}"#, []),
            (#"{"x":1}"#, [.missingAps]),
            (#"{"aps":[1]}"#, [.missingAps]),
            (#"{"aps":{"event":"end"}}"#, [.timestampMissing]),
            (#"{"aps":{"timestamp":"1","event":"end"}}"#, [.timestampMissing]),
            (#"{"aps":{"timestamp":1}}"#, [.eventMissing]),
            (#"{"aps":{"timestamp":1,"event":"pause"}}"#, [.eventUnknown("pause")]),
            (#"{"aps":{"timestamp":1,"event":3}}"#, [.eventUnknown("3")]),
            (#"{"aps":{"timestamp":1,"event":"start","content-state":{}}}"#, [.eventStart]),
            (#"{"aps":{"timestamp":1,"event":"update"}}"#, [.contentStateMissing]),
            (#"{"aps":{"timestamp":1,"event":"end","content-state":1}}"#, [.contentStateMissing]),
            (#"{"aps":{"timestamp":1,"event":"end","stale-date":"x"}}"#, [.dateNotNumber("stale-date")]),
            (#"{"aps":{"timestamp":1,"event":"end","dismissal-date":null}}"#, [.dateNotNumber("dismissal-date")]),
        ]
        for (json, expected) in rows {
            XCTAssertEqual(try lints(json), expected, json)
        }
    }

    func testMessagesNameTheRule() {
        XCTAssertTrue(ActivityKitLint.eventStart.message.contains("broadcast cannot start a Live Activity"))
        XCTAssertTrue(ActivityKitLint.eventUnknown("pause").message.contains(#""pause""#))
    }
}
