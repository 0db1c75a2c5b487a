import APNsCore
import JSONInput
import Recording
import XCTest

@testable import TestFixtures

/// A verification's match and its near misses (docs/testing.md): each field, payload paths,
/// numbers by value, and the ranking of the closest records.
final class DeliveryMatchTests: XCTestCase {
    typealias S = StoreFixtures
    typealias Condition = DeliveryMatch.PayloadCondition

    func record(
        seq: UInt64, topic: String = "com.example.app", status: Int = 200,
        payload: String = #"{"aps":{"alert":{"title":"Hi"},"badge":3},"items":[{"id":7}]}"#
    ) -> DeliveryRecord {
        var record = S.record(topic: topic, status: status, payload: Array(payload.utf8))
        record.seq = seq
        return record
    }

    /// A create's record named no channel; a match told its seq (`channelCreateSeq`) counts it
    /// as one of the channel it made (docs/broadcast.md §4), and only that record.
    func testTheCreateOfAChannelMatchesItsChannelID() {
        var create = record(seq: 7)
        create.path = "/1/apps/com.example.app/channels"
        var match = DeliveryMatch(channelID: "dHN0")
        XCTAssertEqual(match.differences(create).map(\.description), [#"channelId: expected "dHN0", got nothing"#])
        match.filter.channelCreateSeq = 7
        XCTAssertTrue(match.matches(create))
        XCTAssertFalse(match.matches(record(seq: 8)))
    }

    func testEachFieldDiffersByNameWithBothValues() {
        let base = record(seq: 1)
        let rows: [(DeliveryMatch, [String])] = [
            (DeliveryMatch(), []),
            (DeliveryMatch(token: "AABBCCDD"), []),
            (DeliveryMatch(token: "00"), [#"token: expected "00", got "aabbccdd""#]),
            (DeliveryMatch(topic: "com.other"), [#"topic: expected "com.other", got "com.example.app""#]),
            (DeliveryMatch(pushType: "alert"), []),
            (DeliveryMatch(pushType: "background"), [#"pushType: expected "background", got "alert""#]),
            (DeliveryMatch(status: 410), ["status: expected 410, got 200"]),
            (DeliveryMatch(reason: .badDeviceToken), [#"reason: expected "BadDeviceToken", got nothing"#]),
            (DeliveryMatch(apnsID: "6f1d5d8a-8e1b-4c0a-9d1e-6f8b1a2c3d4e"), []),
            (DeliveryMatch(collapseID: "c"), [#"collapseId: expected "c", got nothing"#]),
            (DeliveryMatch(environment: .production), [#"environment: expected "production", got "sandbox""#]),
            (DeliveryMatch(kind: .push), []),
            (DeliveryMatch(kind: .broadcast), [#"kind: expected "broadcast", got "push""#]),
            (DeliveryMatch(channelID: "dHN0"), [#"channelId: expected "dHN0", got nothing"#]),
            (DeliveryMatch(payload: [Condition(path: "aps.alert.title", value: .string("Hi"))]), []),
            (DeliveryMatch(payload: [Condition(path: "aps.badge", value: .double(3.0))]), []),
            (DeliveryMatch(payload: [Condition(path: "items.0.id", value: .int(7))]), []),
            (DeliveryMatch(payload: [Condition(path: "aps.alert", value: ["title": .string("Hi")])]), []),
            (
                DeliveryMatch(payload: [Condition(path: "aps.badge", value: .int(4))]),
                ["payload.aps.badge: expected 4, got 3"]
            ),
            (
                DeliveryMatch(payload: [Condition(path: "aps.sound", value: .string("x"))]),
                [#"payload.aps.sound: expected "x", got nothing"#]
            ),
            (
                DeliveryMatch(topic: "t", status: 400),
                [#"topic: expected "t", got "com.example.app""#, "status: expected 400, got 200"]
            ),
        ]
        for (match, expected) in rows {
            XCTAssertEqual(match.differences(base).map(\.description), expected, match.description)
            XCTAssertEqual(match.matches(base), expected.isEmpty, match.description)
        }
    }

    func testAStreamWithoutAnswerHasNoStatus() {
        let unanswered = record(seq: 1, status: 0)
        XCTAssertEqual(DeliveryMatch(status: 200).differences(unanswered).map(\.actual), [nil])
    }

    func testNearMissesAreTheFewestDifferencesNewestFirstAfterTheScope() {
        let match = DeliveryMatch(
            topic: "com.example.app", status: 200, payload: [Condition(path: "aps.badge", value: .int(9))], after: 1)
        let records = [
            record(seq: 1),  // before the scope
            record(seq: 2, topic: "com.other", status: 400),  // three differences
            record(seq: 3),  // one: the badge
            record(seq: 4, topic: "com.other"),  // two
            record(seq: 5),  // one, newer than 3
            record(seq: 6, payload: #"{"aps":{"badge":9}}"#),  // a match: not a miss
            record(seq: 7, topic: "x", status: 500, payload: "not json"),
        ]
        let misses = match.nearMisses(records)
        XCTAssertEqual(misses.map(\.0.seq), [5, 3, 4])
        XCTAssertEqual(misses.first?.1, [MatchDifference(field: "payload.aps.badge", expected: "9", actual: "3")])
        XCTAssertEqual(match.nearMisses(records, limit: 1).map(\.0.seq), [5])
        XCTAssertEqual(match.filter.topic, "com.example.app")
        XCTAssertEqual(match.filter.after, 1)
    }

    /// The ranking beyond the count of differences: closer values first, answered 200 before the
    /// rest, then the newest. Each row: the records (seq, status, title or nil for no payload) and
    /// the seqs of the near misses expected, in order.
    func testNearMissesPreferCloserValuesThenAnswered200() {
        let match = DeliveryMatch(payload: [Condition(path: "aps.alert.title", value: .string("Your order shipped"))])
        func titled(_ seq: UInt64, _ status: Int, _ title: String?) -> DeliveryRecord {
            record(seq: seq, status: status, payload: title.map { #"{"aps":{"alert":{"title":"\#($0)"}}}"# } ?? "{}")
        }
        let rows: [(String, [DeliveryRecord], [UInt64])] = [
            (
                "a rejected push with no such value ranks after a string that differs by a word",
                [titled(1, 200, "Your order has shipped"), titled(2, 400, nil)], [1, 2]
            ),
            (
                "the closer string first, though older",
                [titled(1, 200, "Your order shipped!"), titled(2, 200, "Welcome back"), titled(3, 200, "Your cart")],
                [1, 3, 2]
            ),
            (
                "equally close: answered 200 before a rejection",
                [titled(1, 200, "Your order"), titled(2, 410, "Your order")], [1, 2]
            ),
            (
                "equally close and answered: the newest first",
                [titled(1, 200, "Your order"), titled(2, 200, "Your order")], [2, 1]
            ),
        ]
        for (name, records, expected) in rows {
            XCTAssertEqual(match.nearMisses(records).map(\.0.seq), expected, name)
        }
    }

    func testDistanceIsEditDistanceOverTheLongerStringAndOneForAnythingElse() {
        let rows: [(String, String?, Double)] = [
            (#""abc""#, #""abc""#, 0),
            (#""abc""#, #""abd""#, 1.0 / 3),
            (#""kitten""#, #""sitting""#, 3.0 / 7),
            (#""""#, #""""#, 0),
            (#""a""#, nil, 1),
            ("3", "2", 1),
            (#""3""#, "3", 1),
        ]
        for (expected, actual, distance) in rows {
            let difference = MatchDifference(field: "f", expected: expected, actual: actual)
            XCTAssertEqual(difference.distance, distance, accuracy: 1e-9, "\(expected) vs \(actual ?? "nil")")
        }
    }

    func testDescription() {
        XCTAssertEqual(DeliveryMatch().description, "any push")
        XCTAssertEqual(
            DeliveryMatch(token: "AB", status: 200, payload: [Condition(path: "aps.badge", value: .int(1))], after: 4)
                .description,
            #"token="ab", status=200, payload.aps.badge=1, after seq 4"#)
    }
}
