import APNsCore
import JSONInput
import XCTest

@testable import Faults

/// Every invalid rule names its field and says what was expected.
final class FaultRuleValidationTests: XCTestCase {
    /// (rule JSON, exact error description).
    static let rows: [(String, String)] = [
        ("[]", "expected an object, got an array"),
        ("{", "not valid JSON"),
        (#"{"action":{"type":"noResponse"},}"#, "not valid JSON: line 1, column 32: trailing comma before '}'"),
        (
            #"{"id":"a","action":{"type":"noResponse"},"id":"b"}"#,
            #"not valid JSON: line 1, column 42: duplicate key "id""#
        ),
        ("", "not valid JSON: the document is empty; expected a JSON value"),
        (#"{}"#, "action: required: an action object with a \"type\""),
        (
            #"{"action":{"type":"noResponse"},"mtach":{}}"#,
            #"mtach: unknown key (did you mean "match"?); valid keys here: id, match, lifetime, action, description"#
        ),
        (
            #"{"action":{}}"#,
            "action.type: required: one of respond, delay, noResponse, resetStream, goaway, close, reset, settings, withholdWindowUpdate, sickConnection, sequence, rateLimit, streamRateLimit, blackhole, drain"
        ),
        (
            #"{"action":{"type":"respnd","reason":"BadTopic"}}"#,
            #"action.type: unknown action "respnd" (did you mean "respond"?); expected one of respond, delay, noResponse, resetStream, goaway, close, reset, settings, withholdWindowUpdate, sickConnection, sequence, rateLimit, streamRateLimit, blackhole, drain"#
        ),
        (#"{"action":{"type":"respond","status":200,"reason":"BadTopic"}}"#, "action.status: must be 400-599, got 200"),
        (
            #"{"action":{"type":"respond","status":"503","reason":"BadTopic"}}"#,
            #"action.status: expected an integer from 400 to 599, got "503""#
        ),
        (
            // 503 alone takes ServiceUnavailable (FaultResponseStatusAloneTests); 400 has no generic reason.
            #"{"action":{"type":"respond","status":400}}"#,
            #"action.reason: required with status 400 (Apple documents no generic reason for 400; one of BadCollapseId, BadDeviceToken, BadExpirationDate, BadMessageId, BadPriority, BadTopic, DeviceTokenNotForTopic, DuplicateHeaders, IdleTimeout, InvalidPushType, MissingDeviceToken, MissingTopic, PayloadEmpty, TopicDisallowed, FeatureNotEnabled, MissingChannelId, BadChannelId, ChannelNotRegistered, BadRequestParams, BadRequestPayload, MissingPushType, CannotCreateChannelConfig)"#
        ),
        (
            #"{"action":{"type":"respond","status":418}}"#,
            "action.reason: required with status 418 (Apple documents no reason for 418)"
        ),
        (#"{"action":{"type":"respond","status":600}}"#, "action.status: must be 400-599, got 600"),
        (
            #"{"action":{"type":"respond"}}"#,
            #"action.reason: required: an APNs reason such as "ServiceUnavailable", or a status alone"#
        ),
        (
            #"{"action":{"type":"respond","reason":"Unregisterd"}}"#,
            #"action.reason: unknown reason "Unregisterd" (did you mean "Unregistered"?); expected one of "#
        ),
        (
            #"{"action":{"type":"respond","reason":"BadTopic","timestamp":5}}"#,
            "action.timestamp: only with status 410 (APNs sends a timestamp on 410 alone)"
        ),
        (
            #"{"action":{"type":"respond","reason":"BadTopic","ms":5}}"#,
            "action.ms: unknown key; valid keys here: type, status, reason, timestamp"
        ),
        (#"{"action":{"type":"delay","ms":-1}}"#, "action.ms: must be 0 to 86400000 milliseconds, got -1"),
        (#"{"action":{"type":"delay"}}"#, "action.ms: required: an integer of milliseconds"),
        (
            #"{"action":{"type":"delay","ms":1,"then":{"type":"sequence","steps":["pass"]}}}"#,
            "action.then.type: sequence only at the top of a rule, not nested"
        ),
        (
            #"{"action":{"type":"delay","ms":1,"then":{"type":"respond","reason":"BadTopic","status":99}}}"#,
            "action.then.status: must be 400-599, got 99"
        ),
        (
            #"{"action":{"type":"resetStream","errorCode":"REFUSED"}}"#,
            #"action.errorCode: unknown error code "REFUSED"; expected an HTTP/2 error code name such as "REFUSED_STREAM" or a number from 0 to 4294967295"#
        ),
        (
            #"{"action":{"type":"resetStream","errorCode":-1}}"#,
            #"action.errorCode: expected an HTTP/2 error code name such as "REFUSED_STREAM" or a number from 0 to 4294967295, got -1"#
        ),
        (
            #"{"action":{"type":"resetStream"}}"#,
            #"action.errorCode: required: an HTTP/2 error code name such as "REFUSED_STREAM" or a number from 0 to 4294967295"#
        ),
        (
            #"{"action":{"type":"goaway","reason":"x","debugData":"y"}}"#,
            "action.debugData: give either reason or debugData, not both"
        ),
        (
            #"{"action":{"type":"goaway","keepOpen":true,"closeAfterMs":5}}"#,
            "action.keepOpen: cannot be combined with closeAfterMs (keepOpen never closes)"
        ),
        (#"{"action":{"type":"goaway","lastStreamId":-3}}"#, "action.lastStreamId: must be 0 to 2147483647, got -3"),
        (
            #"{"action":{"type":"close","when":"later"}}"#,
            #"action.when: expected one of "before-response", "after-response", got "later""#
        ),
        (
            #"{"action":{"type":"close","when":"after-respnose"}}"#,
            #"action.when: expected one of "before-response", "after-response", got "after-respnose" (did you mean "after-response"?)"#
        ),
        (
            #"{"action":{"type":"settings","maxConcurrentStreams":-1}}"#,
            "action.maxConcurrentStreams: expected an integer from 0 to 4294967295, got -1"
        ),
        (
            #"{"action":{"type":"sickConnection","status":600,"reason":"InternalServerError"}}"#,
            "action.status: must be 400-599, got 600"
        ),
        (#"{"action":{"type":"sequence","steps":[]}}"#, "action.steps: must hold at least one step"),
        (
            #"{"action":{"type":"sequence","steps":["pass","skip"]}}"#,
            #"action.steps[1]: expected "pass" or an action object, got "skip""#
        ),
        (
            #"{"action":{"type":"sequence","steps":[{"type":"rateLimit","perSecond":1}]}}"#,
            "action.steps[0].type: rateLimit only at the top of a rule, not nested"
        ),
        (
            #"{"action":{"type":"sequence","steps":["pass",{"type":"respond","reason":"BadTopic","status":1}]}}"#,
            "action.steps[1].status: must be 400-599, got 1"
        ),
        (
            #"{"action":{"type":"rateLimit","perSecond":0}}"#,
            "action.perSecond: must be above 0 and at most 1000000, got 0.0"
        ),
        (#"{"action":{"type":"rateLimit","perSecond":1,"burst":0}}"#, "action.burst: must be at least 1, got 0"),
        (
            #"{"match":{"probability":1.5},"action":{"type":"noResponse"}}"#,
            "match.probability: must be within 0 and 1, got 1.5"
        ),
        (
            #"{"match":{"seed":1},"action":{"type":"noResponse"}}"#,
            "match.seed: only with probability, probabilityRamp or connectionShare"
        ),
        (#"{"match":{"nth":0},"action":{"type":"noResponse"}}"#, "match.nth: must be at least 1, got 0"),
        (#"{"match":{"everyKth":0},"action":{"type":"noResponse"}}"#, "match.everyKth: must be at least 1, got 0"),
        (#"{"match":{"priority":7},"action":{"type":"noResponse"}}"#, "match.priority: must be 1, 5 or 10, got 7"),
        (#"{"match":{"connection":0},"action":{"type":"noResponse"}}"#, "match.connection: must be at least 1, got 0"),
        (#"{"match":{"token":""},"action":{"type":"noResponse"}}"#, "match.token: must not be empty"),
        (
            #"{"match":{"pushType":"alret"},"action":{"type":"noResponse"}}"#,
            #"match.pushType: unknown push type "alret" (did you mean "alert"?); expected one of alert, background, voip, complication, fileprovider, mdm, location, liveactivity, pushtotalk, widgets, controls"#
        ),
        (
            #"{"match":{"environment":"prod"},"action":{"type":"noResponse"}}"#,
            #"match.environment: expected one of "sandbox", "production", got "prod""#
        ),
        (
            #"{"match":{"topc":"x"},"action":{"type":"noResponse"}}"#,
            #"match.topc: unknown key (did you mean "topic"?); valid keys here: "#
        ),
        (
            #"{"match":{"headers":{"apns-id":{"present":false}}},"action":{"type":"noResponse"}}"#,
            "match.headers.apns-id.present: must be true (use absent for the opposite)"
        ),
        (
            #"{"match":{"headers":{"apns-id":{"present":true,"equals":"x"}}},"action":{"type":"noResponse"}}"#,
            "match.headers.apns-id: expected exactly one of present, absent, equals; got equals, present"
        ),
        (
            #"{"match":{"headers":{":path":{"present":true}}},"action":{"type":"noResponse"}}"#,
            #"match.headers: header names must be regular (not empty, not a :pseudo-header), got ":path""#
        ),
        (
            #"{"match":{"payload":[{"path":"aps..x","equals":1}]},"action":{"type":"noResponse"}}"#,
            #"match.payload[0].path: expected a dot path such as "aps.alert.title" (no empty segments), got "aps..x""#
        ),
        (
            #"{"match":{"payload":[{"path":"a"}]},"action":{"type":"noResponse"}}"#,
            "match.payload[0]: expected exactly one of equals, present, absent; got none"
        ),
        (
            #"{"match":{"from":"yesterday"},"action":{"type":"noResponse"}}"#,
            #"match.from: expected an ISO 8601 time such as "2026-11-30T08:49:03.123Z" or an integer of milliseconds since the epoch, got "yesterday""#
        ),
        (
            #"{"match":{"from":2000,"until":1000},"action":{"type":"noResponse"}}"#,
            "match.until: must be after from (1970-01-01T00:00:02.000Z), got 1970-01-01T00:00:01.000Z"
        ),
        (#"{"lifetime":{"times":0},"action":{"type":"noResponse"}}"#, "lifetime.times: must be at least 1, got 0"),
        (
            #"{"lifetime":"forever","action":{"type":"noResponse"}}"#,
            #"lifetime: expected "unlimited" or an object with one of times, timesPerConnection, until; got "forever""#
        ),
        (
            #"{"lifetime":{"times":1,"until":5},"action":{"type":"noResponse"}}"#,
            "lifetime: expected exactly one of times, timesPerConnection, until; got times, until"
        ),
        // One GOAWAY frame carries at most 16,376 bytes of debug data: longer is refused, not cut.
        (
            #"{"action":{"type":"goaway","reason":""# + String(repeating: "y", count: 16_364) + #""}}"#,
            "action.reason: the GOAWAY debug data would be 16377 bytes; one frame carries at most 16376"
        ),
        (
            #"{"action":{"type":"goaway","debugData":""# + String(repeating: "y", count: 16_377) + #""}}"#,
            "action.debugData: the GOAWAY debug data would be 16377 bytes; one frame carries at most 16376"
        ),
        // So does a drain's GOAWAY.
        (
            #"{"action":{"type":"drain","reason":""# + String(repeating: "y", count: 16_364) + #""}}"#,
            "action.reason: the GOAWAY debug data would be 16377 bytes; one frame carries at most 16376"
        ),
        (
            #"{"id":"a b","action":{"type":"noResponse"}}"#,
            #"id: must be 1 to 64 letters, digits, '.', '_' or '-', got "a b""#
        ),
    ]

    func testTable() {
        for (json, expected) in Self.rows {
            XCTAssertThrowsError(try FaultRule.decode(json: Array(json.utf8)), json) { error in
                let text = "\(error)"
                if expected.hasSuffix(": ") || expected.hasSuffix("of ") || expected == "not valid JSON" {
                    XCTAssertTrue(text.hasPrefix(expected), "\(json)\n got: \(text)")
                } else {
                    XCTAssertEqual(text, expected, json)
                }
            }
        }
    }

    /// A value parsed before (a configuration file's entry) reads like the same JSON text.
    func testGoawayDebugDataUpToOneFrameIsAccepted() throws {
        let reason = String(repeating: "y", count: 16_363)
        let rule = try FaultRule.decode(
            json: Array((#"{"action":{"type":"goaway","reason":""# + reason + #""}}"#).utf8))
        guard case .goaway(let goaway) = rule.action else { return XCTFail("\(rule.action)") }
        XCTAssertEqual(goaway.debugBytes.count, GoawayDebugDataLimit.maxBytes)
    }

    /// A value parsed before (a configuration file's entry) reads like the same JSON text.
    func testRulesDecodeFromAParsedValue() throws {
        let node = JSONNode.object([
            "id": .string("r1"), "match": .object(["priority": .int(5)]),
            "action": .object(["type": .string("respond"), "reason": .string("BadTopic")]),
        ])
        XCTAssertEqual(
            try FaultRule.decode(node: node),
            FaultRule(id: "r1", match: FaultMatch(priority: 5), action: .respond(FaultResponse(reason: .badTopic))))
        XCTAssertThrowsError(
            try FaultRule.decode(node: .object(["action": .object(["type": .string("delay"), "ms": .string("5")])]))
        ) {
            XCTAssertEqual("\($0)", #"action.ms: expected an integer of milliseconds, got "5""#)
        }
    }

    func testRulesBuiltInCodeAreValidatedOnAdd() {
        let engine = FaultEngine()
        let rows: [(FaultRule, String)] = [
            (
                FaultRule(match: FaultMatch(probability: -0.1), action: .noResponse),
                "match.probability: must be within 0 and 1, got -0.1"
            ),
            (
                FaultRule(action: .sequence([.action(.sequence([.pass]))])),
                "action.steps[0].type: sequence only at the top of a rule, not nested"
            ),
            (
                FaultRule(action: .delay(milliseconds: 1, then: .rateLimit(FaultRateLimit(perSecond: 1)))),
                "action.then.type: rateLimit only at the top of a rule, not nested"
            ),
            (
                FaultRule(action: .respond(FaultResponse(status: 302, reason: .badPath))),
                "action.status: must be 400-599, got 302"
            ),
            (FaultRule(id: "", action: .noResponse), #"id: must be 1 to 64 letters, digits, '.', '_' or '-', got """#),
            (
                FaultRule(lifetime: .timesPerConnection(0), action: .noResponse),
                "lifetime.timesPerConnection: must be at least 1, got 0"
            ),
        ]
        for (rule, expected) in rows {
            XCTAssertThrowsError(try engine.add(rule)) { XCTAssertEqual("\($0)", expected) }
        }
        XCTAssertEqual(engine.rules(), [])
    }
}
