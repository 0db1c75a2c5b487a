import APNsCore
import Foundation
import HTTPFields
import XCTest

@testable import Faults
@testable import TestFixtures

/// Each match condition, with a push it selects and one it does not.
final class FaultMatchTests: XCTestCase {
    typealias F = FaultFixture

    struct Row {
        let name: String
        let match: String
        let hit: FaultContext
        /// nil when nothing can miss (empty match, probability 1).
        let miss: FaultContext?
        let line: UInt

        init(_ name: String, _ match: String, hit: FaultContext, miss: FaultContext?, line: UInt = #line) {
            self.name = name
            self.match = match
            self.hit = hit
            self.miss = miss
            self.line = line
        }
    }

    /// A channel or broadcast request's context.
    static func channelContext(_ kind: RequestKind, channel: String?) -> FaultContext {
        var context = F.context(token: nil, pushTypeSent: "liveactivity", pushType: .liveactivity)
        context.kind = kind
        context.channelID = channel
        return context
    }

    func testAContextKnowsItsKindAndChannelFromTheRequest() {
        let request = HTTP2Request(
            method: "POST", path: "/4/broadcasts/apps/com.x",
            headers: [HeaderField(name: "apns-channel-id", value: "AAAA")], body: [])
        let context = FaultContext(
            verdict: ValidationResult(), request: request,
            connection: PushOrigin(id: 1, listener: "l", environment: .sandbox, peer: ""), nowMilliseconds: 0)
        XCTAssertEqual(context.kind, .broadcast)
        XCTAssertEqual(context.channelID, "AAAA")
        XCTAssertEqual(F.context().kind, .push)
        XCTAssertNil(F.context().channelID)
    }

    func testKindAndChannelIDRoundTripAndAreChecked() throws {
        let rule = try XCTUnwrap(
            F.rule(
                #"{"match":{"kind":"channel","channelId":"AAAA"},"action":{"type":"respond","reason":"TooManyRequests"}}"#
            ))
        XCTAssertEqual(rule.match.kind, .channel)
        XCTAssertEqual(rule.match.channelID, "AAAA")
        let json = String(decoding: try JSONEncoder().encode(rule.match), as: UTF8.self)
        XCTAssertTrue(json.contains(#""kind":"channel""#) && json.contains(#""channelId":"AAAA""#), json)
        XCTAssertThrowsError(
            try FaultRule.decode(json: Array(#"{"match":{"channelId":""},"action":{"type":"pass"}}"#.utf8)))
        XCTAssertThrowsError(
            try FaultRule.decode(json: Array(#"{"match":{"kind":"pushes"},"action":{"type":"pass"}}"#.utf8)))
    }

    func testEachConditionTable() {
        let upperToken = F.token.uppercased()
        let rows = [
            Row("empty match", "{}", hit: F.context(), miss: nil),
            Row(
                "token, case-insensitive", #"{"token":"\#(upperToken)"}"#, hit: F.context(),
                miss: F.context(token: F.otherToken)),
            Row(
                "token absent from request", #"{"token":"\#(F.token)"}"#, hit: F.context(), miss: F.context(token: nil)),
            Row("tokenPrefix", #"{"tokenPrefix":"ABAB"}"#, hit: F.context(), miss: F.context(token: F.otherToken)),
            Row(
                "topic", #"{"topic":"com.example.app"}"#, hit: F.context(), miss: F.context(topic: "com.example.other")),
            Row(
                "pushType as sent", #"{"pushType":"alert"}"#, hit: F.context(),
                miss: F.context(pushTypeSent: "voip", pushType: .voip)),
            Row(
                "pushType inferred", #"{"pushType":"background"}"#,
                hit: F.context(pushTypeSent: nil, pushType: .background),
                miss: F.context(pushTypeSent: nil, pushType: .alert)),
            Row("priority", #"{"priority":5}"#, hit: F.context(priority: 5), miss: F.context(priority: 10)),
            Row("listener", #"{"listener":"sandbox"}"#, hit: F.context(), miss: F.context(listener: "prod")),
            Row(
                "environment", #"{"environment":"production"}"#,
                hit: F.context(environment: .production), miss: F.context(environment: .sandbox)),
            Row("keyId", #"{"keyId":"KEY1234567"}"#, hit: F.context(), miss: F.context(keyID: nil)),
            Row("teamId", #"{"teamId":"TEAM123456"}"#, hit: F.context(), miss: F.context(teamID: "OTHER12345")),
            Row("connection", #"{"connection":7}"#, hit: F.context(connection: 7), miss: F.context(connection: 8)),
            Row(
                "nthConnection", #"{"nthConnection":2}"#, hit: F.context(connection: 9, ordinal: 2),
                miss: F.context(connection: 2, ordinal: 3)),
            Row(
                "header present", #"{"headers":{"Authorization":{"present":true}}}"#, hit: F.context(),
                miss: F.context(headers: [])),
            Row(
                "header absent", #"{"headers":{"apns-collapse-id":{"absent":true}}}"#,
                hit: F.context(), miss: F.context(headers: [("apns-collapse-id", "x")])),
            Row(
                "header equals", #"{"headers":{"apns-collapse-id":{"equals":"x"}}}"#,
                hit: F.context(headers: [("apns-collapse-id", "y"), ("apns-collapse-id", "x")]),
                miss: F.context(headers: [("apns-collapse-id", "X")])),
            Row(
                "payload string", #"{"payload":[{"path":"aps.alert.title","equals":"Hi"}]}"#,
                hit: F.context(), miss: F.context(payload: #"{"aps":{"alert":{"title":"Ho"}}}"#)),
            Row(
                "payload integer equals float", #"{"payload":[{"path":"aps.badge","equals":3.0}]}"#,
                hit: F.context(), miss: F.context(payload: #"{"aps":{"badge":4}}"#)),
            Row(
                "payload array index", #"{"payload":[{"path":"items.1.n","equals":2.5}]}"#,
                hit: F.context(), miss: F.context(payload: #"{"items":[{"n":2.5}]}"#)),
            Row(
                "payload boolean is not 1", #"{"payload":[{"path":"flag","equals":true}]}"#,
                hit: F.context(), miss: F.context(payload: #"{"flag":1}"#)),
            Row(
                "payload null", #"{"payload":[{"path":"none","equals":null}]}"#,
                hit: F.context(), miss: F.context(payload: #"{"other":null}"#)),
            Row(
                "payload object", #"{"payload":[{"path":"aps.alert","equals":{"title":"Hi"}}]}"#,
                hit: F.context(), miss: F.context(payload: #"{"aps":{"alert":{"title":"Hi","body":"x"}}}"#)),
            Row(
                "payload present", #"{"payload":[{"path":"aps.badge","present":true}]}"#,
                hit: F.context(), miss: F.context(payload: #"{"aps":{}}"#)),
            Row(
                "payload absent", #"{"payload":[{"path":"aps.sound","absent":true}]}"#,
                hit: F.context(), miss: F.context(payload: #"{"aps":{"sound":"a"}}"#)),
            Row(
                "payload not JSON", #"{"payload":[{"path":"aps","present":true}]}"#,
                hit: F.context(), miss: F.context(payload: "not json")),
            Row(
                "from", #"{"from":"2023-11-14T22:13:20Z"}"#, hit: F.context(now: F.now), miss: F.context(now: F.now - 1)
            ),
            Row(
                "until (exclusive)", #"{"until":1700000000000}"#, hit: F.context(now: F.now - 1),
                miss: F.context(now: F.now)),
            Row("probability 1", #"{"probability":1}"#, hit: F.context(), miss: nil),
            // Kind and channel (docs/broadcast.md §4): a rule without kind takes device pushes only.
            Row(
                "no kind: device pushes only", "{}", hit: F.context(),
                miss: Self.channelContext(.broadcast, channel: "AAAA")),
            Row(
                "kind broadcast", #"{"kind":"broadcast"}"#, hit: Self.channelContext(.broadcast, channel: "AAAA"),
                miss: Self.channelContext(.channel, channel: "AAAA")),
            Row(
                "kind channel", #"{"kind":"channel"}"#, hit: Self.channelContext(.channel, channel: nil),
                miss: F.context()),
            Row(
                "kind push", #"{"kind":"push"}"#, hit: F.context(), miss: Self.channelContext(.channel, channel: nil)),
            Row(
                "channelId", #"{"kind":"broadcast","channelId":"AAAA"}"#,
                hit: Self.channelContext(.broadcast, channel: "AAAA"),
                miss: Self.channelContext(.broadcast, channel: "BBBB")),
            Row(
                "all of several", #"{"topic":"com.example.app","priority":10,"environment":"sandbox"}"#,
                hit: F.context(), miss: F.context(priority: 5)),
        ]
        for row in rows {
            let engine = F.engine(
                #"{"match":\#(row.match),"action":{"type":"respond","reason":"ServiceUnavailable"}}"#, line: row.line)
            XCTAssertNotNil(engine.evaluate(row.hit), "\(row.name): should match", line: row.line)
            guard let miss = row.miss else { continue }
            let fresh = F.engine(
                #"{"match":\#(row.match),"action":{"type":"respond","reason":"ServiceUnavailable"}}"#, line: row.line)
            XCTAssertNil(fresh.evaluate(miss), "\(row.name): should not match", line: row.line)
        }
    }

    func testProbabilityZeroNeverMatches() {
        let engine = F.engine(#"{"match":{"probability":0},"action":{"type":"noResponse"}}"#)
        XCTAssertEqual(F.statuses(engine, Array(repeating: F.context(), count: 50)).compactMap { $0 }, [])
        XCTAssertEqual(engine.rules()[0].matched, 0)
    }

    func testNthCountsOnlyCandidates() {
        // Only pushes to topic A count; the 3rd of those gets the fault, then the rule is spent.
        let engine = F.engine(
            #"{"match":{"topic":"A","nth":3},"action":{"type":"respond","reason":"InternalServerError"}}"#)
        let a = F.context(topic: "A"), b = F.context(topic: "B")
        XCTAssertEqual(F.statuses(engine, [a, b, a, b, a, a, a]), [nil, nil, nil, nil, 500, nil, nil])
        XCTAssertTrue(engine.rules()[0].spent)
        XCTAssertFalse(engine.isArmed)
    }

    func testEveryKth() {
        let engine = F.engine(#"{"match":{"everyKth":3},"action":{"type":"respond","reason":"InternalServerError"}}"#)
        let statuses = F.statuses(engine, Array(repeating: F.context(), count: 9))
        XCTAssertEqual(statuses, [nil, nil, 500, nil, nil, 500, nil, nil, 500])
    }

    func testNthWithEveryKthAndTopic() {
        // nth and everyKth count the same candidates: the 4th is also a multiple of 2, so it matches.
        let engine = F.engine(#"{"match":{"nth":4,"everyKth":2},"action":{"type":"noResponse"}}"#)
        XCTAssertEqual(F.statuses(engine, Array(repeating: F.context(), count: 5)), [nil, nil, nil, 0, nil])
    }

    func testPayloadParsedOnlyWhenNeeded() {
        // A rule before the payload rule that fails on topic never parses; a non-JSON body
        // simply fails payload conditions.
        let engine = F.engine(
            #"{"match":{"topic":"x","payload":[{"path":"a","equals":1}]},"action":{"type":"noResponse"}}"#,
            #"{"match":{"payload":[{"path":"a","equals":1}]},"action":{"type":"respond","reason":"BadTopic"}}"#)
        XCTAssertEqual(
            F.statuses(engine, [F.context(payload: #"{"a":1}"#), F.context(payload: "{"), F.context(payload: "")]),
            [400, nil, nil])
    }

    func testHeaderNamesAreLowercasedForRulesBuiltInCode() throws {
        let engine = FaultEngine()
        let stored = try engine.add(
            FaultRule(
                match: FaultMatch(token: F.token.uppercased(), headers: ["APNS-ID": .present]),
                action: F.respond503))
        XCTAssertEqual(stored.match.token, F.token)
        XCTAssertEqual(stored.match.headers?.keys.sorted(), ["apns-id"])
        XCTAssertNotNil(engine.evaluate(F.context(headers: [("apns-id", "x")])))
    }
}
