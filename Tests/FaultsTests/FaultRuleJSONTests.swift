import APNsCore
import JSONInput
import XCTest

@testable import Faults
@testable import TestFixtures

/// The JSON form of rules: every action type round-trips, defaults are filled in, and the
/// status listing is the rule plus its counters.
final class FaultRuleJSONTests: XCTestCase {
    typealias F = FaultFixture

    /// Every action type, in canonical form (sorted keys, defaults written out).
    static let canonicalActions = [
        #"{"reason":"ServiceUnavailable","status":503,"type":"respond"}"#,
        #"{"reason":"Unregistered","status":410,"timestamp":1700000000000,"type":"respond"}"#,
        #"{"ms":2000,"type":"delay"}"#,
        #"{"ms":100,"then":{"reason":"InternalServerError","status":500,"type":"respond"},"type":"delay"}"#,
        #"{"ms":0,"then":{"ms":5,"then":{"type":"noResponse"},"type":"delay"},"type":"delay"}"#,
        #"{"type":"noResponse"}"#,
        #"{"errorCode":"REFUSED_STREAM","type":"resetStream"}"#,
        #"{"errorCode":255,"type":"resetStream"}"#,
        #"{"closeAfterMs":0,"errorCode":"NO_ERROR","keepOpen":false,"lastStreamId":0,"reason":"BadCertificateEnvironment","secondBareGoaway":true,"type":"goaway","when":"before-response"}"#,
        #"{"closeAfterMs":0,"errorCode":"NO_ERROR","keepOpen":true,"reason":"Shutdown","secondBareGoaway":false,"type":"goaway","when":"after-response"}"#,
        #"{"closeAfterMs":3000,"debugData":"Maximum active streams violated for this endpoint.","errorCode":"REFUSED_STREAM","keepOpen":false,"secondBareGoaway":false,"type":"goaway","when":"before-response"}"#,
        #"{"type":"close","when":"after-response"}"#,
        #"{"type":"reset","when":"before-response"}"#,
        #"{"maxConcurrentStreams":1,"type":"settings"}"#,
        #"{"ms":1500,"type":"withholdWindowUpdate"}"#,
        #"{"reason":"InternalServerError","status":500,"type":"sickConnection"}"#,
        #"{"steps":[{"reason":"ServiceUnavailable","status":503,"type":"respond"},{"reason":"ServiceUnavailable","status":503,"type":"respond"},"pass"],"type":"sequence"}"#,
        #"{"steps":[{"ms":10,"type":"delay"},{"type":"reset","when":"before-response"},"pass"],"type":"sequence"}"#,
        #"{"burst":20,"perSecond":10,"type":"rateLimit"}"#,
        #"{"perSecond":0.5,"type":"rateLimit"}"#,
        #"{"maxMs":800,"minMs":200,"seed":7,"type":"delay"}"#,
        #"{"medianMs":300,"seed":7,"spread":0.5,"then":{"type":"noResponse"},"type":"delay"}"#,
        #"{"burst":5,"goawayAfter":3,"perSecond":10,"type":"streamRateLimit"}"#,
        #"{"perSecond":10,"type":"streamRateLimit"}"#,
        #"{"type":"blackhole"}"#,
        #"{"maxMs":800,"reason":"Shutdown","type":"drain"}"#,
    ]

    func testEveryActionRoundTrips() throws {
        var types: Set<String> = []
        for json in Self.canonicalActions {
            let action = try JSONDecoder().decode(FaultAction.self, from: Data(json.utf8))
            types.insert(action.typeName)
            XCTAssertEqual(try F.canonical(action), json)
            let again = try JSONDecoder().decode(FaultAction.self, from: Data(try F.canonical(action).utf8))
            XCTAssertEqual(again, action, json)
        }
        XCTAssertEqual(types, Set(FaultAction.typeNames), "every action type is covered")
    }

    func testDefaultsAreWrittenOut() throws {
        let rows: [(String, String)] = [
            (
                #"{"type":"respond","reason":"TooManyRequests"}"#,
                #"{"reason":"TooManyRequests","status":429,"type":"respond"}"#
            ),
            (
                #"{"type":"respond","status":500,"reason":"Shutdown"}"#,
                #"{"reason":"Shutdown","status":500,"type":"respond"}"#
            ),
            (
                #"{"type":"goaway"}"#,
                #"{"closeAfterMs":0,"errorCode":"NO_ERROR","keepOpen":false,"secondBareGoaway":false,"type":"goaway","when":"before-response"}"#
            ),
            (#"{"type":"resetStream","errorCode":"cancel"}"#, #"{"errorCode":"CANCEL","type":"resetStream"}"#),
            (#"{"type":"resetStream","errorCode":13}"#, #"{"errorCode":"HTTP_1_1_REQUIRED","type":"resetStream"}"#),
            (#"{"type":"close"}"#, #"{"type":"close","when":"before-response"}"#),
            (#"{"type":"delay","ms":5,"then":null}"#, #"{"ms":5,"type":"delay"}"#),
            (#"{"type":"drain"}"#, #"{"maxMs":5000,"reason":"Shutdown","type":"drain"}"#),
        ]
        for (input, expected) in rows {
            let action = try JSONDecoder().decode(FaultAction.self, from: Data(input.utf8))
            XCTAssertEqual(try F.canonical(action), expected, input)
        }
    }

    /// A drain's cap is 1 ms to a day; other keys are refused.
    func testDrainRefusesABadCapAndForeignKeys() {
        for json in [
            #"{"type":"drain","maxMs":0}"#, #"{"type":"drain","maxMs":86400001}"#, #"{"type":"drain","ms":5}"#,
            #"{"type":"drain","reason":5}"#,
        ] {
            XCTAssertThrowsError(try JSONDecoder().decode(FaultAction.self, from: Data(json.utf8)), json)
        }
    }

    func testWholeRuleRoundTrips() throws {
        let json = #"""
            {"id":"r-1","description":"every kind of condition",
             "match":{"token":"ABAB","tokenPrefix":"ab","topic":"com.example.app","pushType":"alert","priority":10,
                      "listener":"sandbox","environment":"sandbox","keyId":"K","teamId":"T","connection":3,"nthConnection":2,
                      "headers":{"Authorization":{"present":true},"apns-collapse-id":{"absent":true},"apns-id":{"equals":"x"}},
                      "payload":[{"path":"aps.alert.title","equals":"Hi"},{"path":"a.0","equals":[1,{"b":null}]},
                                 {"path":"c","present":true},{"path":"d","absent":true}],
                      "nth":3,"everyKth":2,"probability":0.25,"seed":42,
                      "from":"2023-11-14T22:13:20Z","until":1700000060000},
             "lifetime":{"times":5},
             "action":{"type":"respond","status":503,"reason":"ServiceUnavailable"}}
            """#
        let rule = try FaultRule.decode(json: Array(json.utf8))
        XCTAssertEqual(rule.match.token, "abab", "stored lowercase")
        XCTAssertEqual(rule.match.headers?["authorization"], .present)
        XCTAssertEqual(rule.match.from, ISO8601Timestamp(epochMilliseconds: 1_700_000_000_000))
        XCTAssertEqual(rule.match.until, ISO8601Timestamp(epochMilliseconds: 1_700_000_060_000))
        let encoded = try F.canonical(rule)
        XCTAssertTrue(encoded.contains(#""until":"2023-11-14T22:14:20.000Z""#), encoded)
        XCTAssertEqual(try FaultRule.decode(json: Array(encoded.utf8)), rule)
    }

    func testMinimalRuleDefaults() throws {
        let rule = try FaultRule.decode(json: Array(#"{"action":{"type":"noResponse"}}"#.utf8))
        XCTAssertNil(rule.id)
        XCTAssertTrue(rule.match.isEmpty)
        XCTAssertEqual(rule.lifetime, .unlimited)
        XCTAssertEqual(try F.canonical(rule), #"{"action":{"type":"noResponse"},"lifetime":"unlimited","match":{}}"#)
    }

    func testLifetimeForms() throws {
        let rows: [(String, FaultLifetime)] = [
            (#""unlimited""#, .unlimited),
            (#"{"times":3}"#, .times(3)),
            (#"{"timesPerConnection":1}"#, .timesPerConnection(1)),
            (#"{"until":"2023-11-14T23:13:20+01:00"}"#, .until(ISO8601Timestamp(clamping: 1_700_000_000_000))),
            (#"{"until":1700000000000}"#, .until(ISO8601Timestamp(clamping: 1_700_000_000_000))),
        ]
        for (json, expected) in rows {
            let lifetime = try JSONDecoder().decode(FaultLifetime.self, from: Data(json.utf8))
            XCTAssertEqual(lifetime, expected, json)
            XCTAssertEqual(
                try JSONDecoder().decode(FaultLifetime.self, from: Data(try F.canonical(lifetime).utf8)), expected)
        }
    }

    func testStatusListingIsTheRuleWithCounters() throws {
        let engine = F.engine(
            #"{"id":"x","match":{"connection":1},"action":{"type":"sickConnection","reason":"InternalServerError"}}"#)
        _ = engine.evaluate(F.context())
        _ = engine.evaluate(F.context())
        XCTAssertEqual(
            try F.canonical(engine.rules()[0]),
            #"{"action":{"reason":"InternalServerError","status":500,"type":"sickConnection"},"fired":2,"id":"x","lifetime":"unlimited","match":{"connection":1},"matched":1,"sickConnections":[1],"spent":false}"#
        )
    }

    func testDecodesInsideALargerDocumentWithJSONDecoder() throws {
        struct File: Decodable { let faults: [FaultRule] }
        let good = #"{"faults":[{"action":{"type":"noResponse"}},{"id":"b","action":{"type":"reset"}}]}"#
        XCTAssertEqual(try JSONDecoder().decode(File.self, from: Data(good.utf8)).faults.map(\.id), [nil, "b"])
        let bad =
            #"{"faults":[{"action":{"type":"noResponse"}},{"action":{"type":"respond","status":200,"reason":"BadTopic"}}]}"#
        XCTAssertThrowsError(try JSONDecoder().decode(File.self, from: Data(bad.utf8))) { error in
            XCTAssertEqual("\(error)", "faults[1].action.status: must be 400-599, got 200")
        }
    }

    func testDecodeList() throws {
        let rules = try FaultRule.decodeList(
            json: Array(#"[{"action":{"type":"noResponse"}},{"action":{"type":"reset"}}]"#.utf8))
        XCTAssertEqual(rules.map(\.action), [.noResponse, .reset(.beforeResponse)])
        XCTAssertThrowsError(try FaultRule.decodeList(json: Array(#"[{"action":{"type":"nope"}}]"#.utf8))) { error in
            XCTAssertTrue("\(error)".hasPrefix(#"[0].action.type: unknown action "nope""#), "\(error)")
        }
    }
}
