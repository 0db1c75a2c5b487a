import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import JSONSupport
@testable import Recording
@testable import TestFixtures

/// `POST /v1/verify` and `GET /v1/verify/teardown` (docs/testing.md): 200 when the expectation
/// holds, 406 with the closest records when it does not, waits and watches with `withinMs`.
final class ControlAPIVerifyTests: XCTestCase {
    private typealias F = StoreFixtures

    private func makeAPI() -> ControlAPI {
        ControlAPI(
            store: DeliveryStore(capacity: 100), registry: DeviceRegistry(), clock: { 1_796_028_543.5 },
            status: { F.status() })
    }

    func testAMatchPassesAndAMissExplainsItselfWithTheClosestRecords() {
        let api = makeAPI()
        api.store.append(F.record(payload: Array(#"{"aps":{"alert":"hi","badge":2}}"#.utf8)))
        api.store.append(F.record(topic: "com.other", payload: Array(#"{"aps":{"badge":3}}"#.utf8)))
        var (status, json) = api.call("POST", "/v1/verify", body: #"{"payload": {"aps.badge": 2}, "exactly": 1}"#)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["ok"] as? Bool, true)
        XCTAssertEqual(json["seqs"] as? [Int], [1])
        (status, json) = api.call(
            "POST", "/v1/verify", body: #"{"topic": "com.example.app", "payload": {"aps.badge": 3}}"#)
        XCTAssertEqual(status, 406)
        XCTAssertEqual(json["ok"] as? Bool, false)
        XCTAssertEqual(json["matched"] as? Int, 0)
        let message = json["message"] as? String ?? ""
        XCTAssertTrue(
            message.hasPrefix(
                #"expected at least 1 push matching topic="com.example.app", payload.aps.badge=3; 0 matched; the closest: seq 2 (topic: expected "com.example.app", got "com.other"), seq 1 (payload.aps.badge: expected 3, got 2)"#
            ), message)
        let misses = json["nearMisses"] as? [[String: Any]] ?? []
        XCTAssertEqual(misses.compactMap { $0["seq"] as? Int }, [2, 1])
        let first = (misses.first?["differences"] as? [[String: Any]])?.first
        XCTAssertEqual(first?["field"] as? String, "topic")
        XCTAssertEqual(first?["actual"] as? String, #""com.other""#)
        XCTAssertEqual((misses.first?["delivery"] as? [String: Any])?["seq"] as? Int, 2)
    }

    func testCountsAndTooMany() {
        let api = makeAPI()
        for _ in 0..<2 { api.store.append(F.record()) }
        let rows: [(String, Int)] = [
            (#"{"exactly": 2}"#, 200), (#"{"exactly": 1}"#, 406), (#"{"atLeast": 3}"#, 406),
            (#"{"atMost": 2}"#, 200), (#"{"atMost": 1}"#, 406), (#"{"never": true}"#, 406),
            (#"{"topic": "none", "never": true}"#, 200), (#"{}"#, 200), (#"{"after": 2}"#, 406),
        ]
        for (body, expected) in rows {
            XCTAssertEqual(api.call("POST", "/v1/verify", body: body).0, expected, body)
        }
        // Too many: the matches are named, no near misses.
        let (_, json) = api.call("POST", "/v1/verify", body: #"{"exactly": 1}"#)
        XCTAssertEqual(json["message"] as? String, "expected exactly 1 push matching any push; 2 matched (seq 1, 2)")
        XCTAssertEqual((json["nearMisses"] as? [Any])?.count, 0)
    }

    func testWithinWaitsForAtLeastAndWatchesForNever() throws {
        let api = makeAPI()
        guard
            case .wait(var wait) = api.handle(
                ControlRequest(
                    method: "POST", target: "/v1/verify", body: Array(#"{"atLeast": 1, "withinMs": 500}"#.utf8)))
        else { return XCTFail("expected a wait") }
        XCTAssertEqual(wait.timeoutMilliseconds, 500)
        XCTAssertNil(api.waitResult(&wait, timedOut: false))
        api.store.append(F.record())
        XCTAssertEqual(try XCTUnwrap(api.waitResult(&wait, timedOut: false)).status, 200)

        guard
            case .wait(var watch) = api.handle(
                ControlRequest(
                    method: "POST", target: "/v1/verify",
                    body: Array(#"{"topic": "t", "never": true, "withinMs": 500}"#.utf8)))
        else { return XCTFail("expected a watch") }
        api.store.append(F.record())
        XCTAssertNil(api.waitResult(&watch, timedOut: false), "nothing matched: keep watching")
        XCTAssertEqual(try XCTUnwrap(api.waitResult(&watch, timedOut: true)).status, 200)

        guard
            case .wait(var broken) = api.handle(
                ControlRequest(
                    method: "POST", target: "/v1/verify",
                    body: Array(#"{"topic": "t", "never": true, "withinMs": 500}"#.utf8)))
        else { return XCTFail("expected a watch") }
        api.store.append(F.record(topic: "t"))
        let failed = try XCTUnwrap(api.waitResult(&broken, timedOut: false))
        XCTAssertEqual(failed.status, 406, "fails as soon as one matches")
        XCTAssertTrue(
            String(decoding: failed.body, as: UTF8.self).contains(
                #""expected no push matching topic=\"t\" within 500 ms; 1 matched"#),
            String(decoding: failed.body, as: UTF8.self))
    }

    /// A verify answered because its gateway was deleted says so in its message.
    func testAVerifyEndedByItsGatewaysDeletionSaysSo() throws {
        let api = makeAPI()
        guard
            case .wait(var wait) = api.handle(
                ControlRequest(
                    method: "POST", target: "/v1/verify",
                    body: Array(#"{"topic": "t", "never": true, "withinMs": 500}"#.utf8)))
        else { return XCTFail("expected a watch") }
        wait.markGatewayDeleted()
        let answer = String(decoding: try XCTUnwrap(api.waitResult(&wait, timedOut: true)).body, as: UTF8.self)
        XCTAssertTrue(
            answer.contains(
                #""verified: no push matching topic=\"t\" within 500 ms; 0 matched; the gateway was deleted before the window ended""#
            ),
            answer)
    }

    /// A pending verify looks only at the records appended since its last look (as
    /// `/v1/deliveries/wait` counts), decodes only candidates, and forgets matches evicted since.
    func testAPendingVerifyMatchesOnlyWhatChanged() throws {
        let api = ControlAPI(
            store: DeliveryStore(capacity: 1_000), registry: DeviceRegistry(), clock: { 1_796_028_543.5 },
            status: { F.status() })
        for _ in 0..<1_000 { api.store.append(F.record()) }
        guard
            case .wait(.verification(var wait)) = api.handle(
                ControlRequest(
                    method: "POST", target: "/v1/verify",
                    body: Array(#"{"payload": {"aps.alert": "never"}, "atLeast": 2, "withinMs": 500}"#.utf8)))
        else { return XCTFail("expected a wait") }
        XCTAssertEqual(wait.decodedRecords, 0, "no stored payload spells \"never\": none decoded")
        XCTAssertEqual(wait.scannedSeq, 1_000)
        api.store.append(F.record(payload: Array(#"{"aps":{"alert":"never"}}"#.utf8)))
        XCTAssertNil(api.waitResult(&wait, timedOut: false))
        XCTAssertEqual(wait.matchedSeqs, [1_001])
        XCTAssertEqual(wait.decodedRecords, 1, "only the new record was decoded")
        // Evicted matches no longer count: 999 records push seq 1001 out.
        for _ in 0..<1_000 { api.store.append(F.record()) }
        XCTAssertNil(api.waitResult(&wait, timedOut: false))
        XCTAssertEqual(wait.matchedSeqs, [])
        api.store.append(F.record(payload: Array(#"{"aps":{"alert":"never"}}"#.utf8)))
        api.store.append(F.record(payload: Array(#"{"aps":{"alert":"never"}}"#.utf8)))
        let answer = try XCTUnwrap(api.waitResult(&wait, timedOut: false))
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(wait.decodedRecords, 3)
    }

    /// A pending verify's first look over a full store is spread over looks of at most
    /// `verificationLookBudget` decoded records; a final answer looks at all of them.
    func testAPendingVerifysFirstLookIsSpreadOverLooks() throws {
        let api = ControlAPI(
            store: DeliveryStore(capacity: 2_000), registry: DeviceRegistry(), clock: { 1_796_028_543.5 },
            status: { F.status() })
        for i in 0..<1_200 { api.store.append(F.record(payload: Array(#"{"aps":{"badge":\#(i % 2)}}"#.utf8))) }
        let budget = ControlAPI.verificationLookBudget
        XCTAssertEqual(budget, 100)
        guard
            case .wait(var wait) = api.handle(
                ControlRequest(
                    method: "POST", target: "/v1/verify",
                    body: Array(#"{"payload": {"aps.badge": 1}, "exactly": 600, "withinMs": 500}"#.utf8)))
        else { return XCTFail("expected a wait") }
        guard case .verification(let first) = wait else { return XCTFail("expected a verification") }
        XCTAssertEqual(first.decodedRecords, budget)
        XCTAssertTrue(wait.needsAnotherLook)
        XCTAssertNil(api.waitResult(&wait, timedOut: false), "the store did not change, but the look goes on")
        guard case .verification(let second) = wait else { return XCTFail("expected a verification") }
        XCTAssertEqual(second.decodedRecords, 2 * budget)
        XCTAssertEqual(second.matchedSeqs.count, budget)
        var looks = 2
        var answer: ControlResponse?
        while answer == nil && looks < 100 {
            answer = api.waitResult(&wait, timedOut: false)
            looks += 1
        }
        XCTAssertEqual(answer?.status, 200, "all looked at: 600")
        XCTAssertEqual(looks, 1_200 / budget, "one look per \(budget) decoded records")
        XCTAssertFalse(wait.needsAnotherLook)

        // Exactly 250 found in the first 500: not a pass while records are left; 600 in all.
        guard
            case .wait(var exactly) = api.handle(
                ControlRequest(
                    method: "POST", target: "/v1/verify",
                    body: Array(#"{"payload": {"aps.badge": 1}, "exactly": 250, "withinMs": 500}"#.utf8)))
        else { return XCTFail("expected a wait") }
        answer = nil
        while answer == nil && looks < 200 {
            answer = api.waitResult(&exactly, timedOut: false)
            looks += 1
        }
        XCTAssertEqual(answer?.status, 406)

        // An atLeast reached part way answers at once; a final answer looks at every record.
        guard
            case .response(let early) = api.handle(
                ControlRequest(
                    method: "POST", target: "/v1/verify",
                    body: Array(#"{"payload": {"aps.badge": 1}, "atLeast": 10, "withinMs": 500}"#.utf8)))
        else { return XCTFail("expected an answer") }
        XCTAssertEqual(early.status, 200)
        guard
            case .wait(var final) = api.handle(
                ControlRequest(
                    method: "POST", target: "/v1/verify",
                    body: Array(#"{"payload": {"aps.badge": 1}, "exactly": 600, "withinMs": 500}"#.utf8)))
        else { return XCTFail("expected a wait") }
        XCTAssertEqual(try XCTUnwrap(api.waitResult(&final, timedOut: true)).status, 200)
    }

    /// Near misses are looked for among the newest `nearMissWindow` (2,000) records only, so a
    /// failure costs what a page costs: an older record that came closer is not compared.
    func testNearMissesAreLookedForAmongTheNewestRecordsOnly() {
        let api = ControlAPI(
            store: DeliveryStore(capacity: 3_000), registry: DeviceRegistry(), clock: { 1_796_028_543.5 },
            status: { F.status() })
        XCTAssertEqual(ControlAPI.nearMissWindow, 2_000)
        api.store.append(F.record(payload: Array(#"{"aps":{"badge":2}}"#.utf8)))  // one difference
        for _ in 0..<2_500 {
            api.store.append(F.record(topic: "com.other", payload: Array(#"{"aps":{"badge":2}}"#.utf8)))
        }
        let (status, json) = api.call(
            "POST", "/v1/verify", body: #"{"topic": "com.example.app", "payload": {"aps.badge": 3}}"#)
        XCTAssertEqual(status, 406)
        let seqs = (json["nearMisses"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }
        XCTAssertEqual(
            seqs, [2_501, 2_500, 2_499], "the newest of the two-difference records; seq 1 is out of the window")
    }

    func testBadBodiesNameTheField() {
        let api = makeAPI()
        let rows: [(String, String)] = [
            (#"{"exactly": 1, "atMost": 2}"#, "give one count"),
            (#"{"never": false}"#, "never: only true"),
            (#"{"status": 99}"#, "status"),
            (#"{"reason": "BadDevToken"}"#, "BadDeviceToken"),
            (#"{"environment": "staging"}"#, "environment"),
            (#"{"payload": {"aps..badge": 1}}"#, "empty segment"),
            (#"{"topik": "x"}"#, "did you mean"),
            (#"{"withinMs": 300001}"#, "withinMs"),
            (#"{"exactly": -1}"#, "exactly"),
            ("", "not valid JSON"),
        ]
        for (body, fragment) in rows {
            let (status, json) = api.call("POST", "/v1/verify", body: body)
            XCTAssertEqual(status, 400, body)
            XCTAssertTrue((json["error"] as? String ?? "").contains(fragment), "\(body): \(json)")
        }
    }

    func testTeardownFindsRejectionsAndUnansweredStreamsNotCausedByAFault() {
        let api = makeAPI()
        XCTAssertEqual(api.call("GET", "/v1/verify/teardown").0, 200)
        api.store.append(F.record())
        api.store.append(F.record(status: 400, reason: .badDeviceToken))
        var faulted = F.record(status: 503, reason: .serviceUnavailable)
        faulted.fault = FaultRecord(ruleID: "r1", action: "respond", description: "503")
        api.store.append(faulted)
        let unanswered = api.store.append(F.record())
        _ = api.store.markUnanswered(seq: unanswered, cause: .connectionReset)
        let (status, json) = api.call("GET", "/v1/verify/teardown")
        XCTAssertEqual(status, 406)
        XCTAssertEqual(json["rejectedCount"] as? Int, 1)
        XCTAssertEqual(json["unansweredCount"] as? Int, 1)
        XCTAssertEqual((json["rejected"] as? [[String: Any]])?.first?["seq"] as? Int, 2)
        XCTAssertEqual(
            json["message"] as? String,
            "not clean: 1 rejected without a fault rule (seq 2: 400 BadDeviceToken); 1 without an answer (seq 4: connection-reset)"
        )
        XCTAssertEqual(api.call("GET", "/v1/verify/teardown?after=4").0, 200)
        XCTAssertEqual(api.call("GET", "/v1/verify/teardown?after=x").0, 400)
    }
}
