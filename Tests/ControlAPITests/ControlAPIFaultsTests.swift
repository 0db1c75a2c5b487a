import JSONInput
import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import Faults
@testable import Recording
@testable import TestFixtures

/// `/v1/faults`: list, add (rules, arrays, scenarios), inspect and remove fault rules.
final class ControlAPIFaultsTests: XCTestCase {
    private typealias F = FaultFixture

    /// An API whose clock and fault engine both read `FaultFixture.now`.
    private func makeAPI() -> ControlAPI {
        ControlAPI(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(),
            clock: { Double(F.now) / 1000 }, faults: FaultEngine(clock: { F.now }),
            status: { StoreFixtures.status() })
    }

    private func faults(_ json: [String: Any]) -> [[String: Any]] { json["faults"] as? [[String: Any]] ?? [] }

    func testAddListGetAndDelete() throws {
        let api = makeAPI()
        // One rule: 201 with the id assigned and the defaults filled in.
        var (status, json) = api.call(
            "POST", "/v1/faults",
            body: """
                {"match": {"token": "\(F.token.uppercased())"}, "action": {"type": "respond", "reason": "ServiceUnavailable"}}
                """)
        XCTAssertEqual(status, 201)
        XCTAssertEqual(faults(json).map { $0["id"] as? String }, ["f1"])
        XCTAssertEqual(faults(json).first?["lifetime"] as? String, "unlimited")
        XCTAssertEqual((faults(json).first?["match"] as? [String: Any])?["token"] as? String, F.token)
        XCTAssertEqual((faults(json).first?["action"] as? [String: Any])?["status"] as? Int, 503)
        XCTAssertNil(faults(json).first?["matched"], "the rules as stored, without counters")

        // An array, in order, ids kept or assigned.
        (status, json) = api.call(
            "POST", "/v1/faults",
            body: """
                [{"id": "slow", "action": {"type": "delay", "ms": 100}},
                 {"lifetime": {"times": 1}, "action": {"type": "resetStream", "errorCode": "REFUSED_STREAM"}}]
                """)
        XCTAssertEqual(status, 201)
        XCTAssertEqual(faults(json).map { $0["id"] as? String }, ["slow", "f2"])

        // A scenario; its window starts at the API's clock.
        (status, json) = api.call(
            "POST", "/v1/faults", body: #"{"scenario": "apns-outage", "parameters": {"durationMs": 60000}}"#)
        XCTAssertEqual(status, 201)
        XCTAssertEqual(faults(json).map { $0["id"] as? String }, ["f3"])
        XCTAssertEqual(faults(json).first?["description"] as? String, "scenario apns-outage")
        XCTAssertEqual(api.faults.rules().last?.rule.lifetime, .until(ISO8601Timestamp(clamping: F.now + 60_000)))
        (status, json) = api.call("POST", "/v1/faults", body: #"{"scenario": "token-expiry", "parameters": null}"#)
        XCTAssertEqual(status, 201)
        XCTAssertEqual(faults(json).map { $0["id"] as? String }, ["f4"])

        // Counters: the first push to the token gets f1's 503.
        XCTAssertEqual(F.statuses(api.faults, [F.context()]), [503])
        (status, json) = api.call("GET", "/v1/faults")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(faults(json).map { $0["id"] as? String }, ["f1", "slow", "f2", "f3", "f4"])
        XCTAssertEqual(faults(json).first?["matched"] as? Int, 1)
        XCTAssertEqual(faults(json).first?["fired"] as? Int, 1)
        XCTAssertEqual(faults(json).first?["spent"] as? Bool, false)

        (status, json) = api.call("GET", "/v1/faults/slow")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["id"] as? String, "slow")
        XCTAssertEqual(json["matched"] as? Int, 0)
        XCTAssertEqual((json["action"] as? [String: Any])?["ms"] as? Int, 100)

        (status, json) = api.call("DELETE", "/v1/faults/slow")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["deleted"] as? String, "slow")
        XCTAssertEqual(api.call("GET", "/v1/faults/slow").0, 404)
        XCTAssertEqual(api.call("DELETE", "/v1/faults/slow").0, 404)

        (status, json) = api.call("DELETE", "/v1/faults")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["removed"] as? Int, 4)
        XCTAssertEqual(faults(api.call("GET", "/v1/faults").1).count, 0)
        XCTAssertFalse(api.faults.isArmed)
        XCTAssertEqual(api.call("DELETE", "/v1/faults").1["removed"] as? Int, 0)
    }

    func testAnArrayIsAddedAllOrNone() {
        let api = makeAPI()
        let (status, json) = api.call(
            "POST", "/v1/faults",
            body: """
                [{"action": {"type": "noResponse"}}, {"action": {"type": "respond", "status": 200, "reason": "BadTopic"}}]
                """)
        XCTAssertEqual(status, 400)
        XCTAssertEqual(json["error"] as? String, "[1].action.status: must be 400-599, got 200")
        XCTAssertEqual(api.faults.rules().count, 0)
        // Nor was an id used up.
        XCTAssertEqual(
            faults(api.call("POST", "/v1/faults", body: #"{"action": {"type": "noResponse"}}"#).1).first?["id"]
                as? String, "f1")
    }

    func testRulesBeyondTheCapAre400WithAMessage() {
        let api = ControlAPI(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(),
            clock: { Double(F.now) / 1000 }, faults: FaultEngine(maxRules: 2, clock: { F.now }),
            status: { StoreFixtures.status() })
        let rule = #"{"action": {"type": "noResponse"}}"#
        XCTAssertEqual(api.call("POST", "/v1/faults", body: rule).0, 201)
        let (status, json) = api.call("POST", "/v1/faults", body: "[\(rule), \(rule)]")
        XCTAssertEqual(status, 400)
        XCTAssertEqual(
            json["error"] as? String,
            "too many fault rules: 1 held, 2 more would exceed the limit of 2 (--max-fault-rules); remove some first")
        XCTAssertEqual(api.call("POST", "/v1/faults", body: rule).0, 201, "up to the cap")
        XCTAssertEqual(api.faults.rules().count, 2)
    }

    func testErrorTable() throws {
        let api = makeAPI()
        try api.faults.add(FaultRule(id: "taken", action: .noResponse))
        let scenarios = "apns-outage, flaky, token-expiry, graceful-restart, throttled, rolling-restart"
        // (method, target, body, status, the error message exactly, or a part of it when it ends in "…")
        let rows: [(String, String, String, Int, String, UInt)] = [
            ("POST", "/v1/faults", "", 400, "the body is not valid JSON", #line),
            ("POST", "/v1/faults", "{oops", 400, "the body is not valid JSON", #line),
            (
                "POST", "/v1/faults", "[{\"action\": {\"type\": \"noResponse\"}},\n]", 400,
                "the body is not valid JSON: line 1, column 36: trailing comma before ']'; expected a rule object, …",
                #line
            ),
            (
                "POST", "/v1/faults", #"{"action": {"type": "noResponse"}, "action": {"type": "close"}}"#, 400,
                #"the body is not valid JSON: line 1, column 36: duplicate key "action"; expected a rule object, …"#,
                #line
            ),
            (
                "POST", "/v1/faults", "5", 400,
                #"expected a rule object, an array of rules, or {"scenario": "<name>", "parameters": {...}}, got 5"#,
                #line
            ),
            ("POST", "/v1/faults", "[]", 400, "the array holds no rules; give at least one", #line),
            ("POST", "/v1/faults", "{}", 400, #"action: required: an action object with a "type""#, #line),
            (
                "POST", "/v1/faults", #"{"action": {"type": "respond", "status": 200, "reason": "BadTopic"}}"#, 400,
                "action.status: must be 400-599, got 200", #line
            ),
            (
                "POST", "/v1/faults", #"{"acton": {"type": "noResponse"}}"#, 400,
                #"acton: unknown key (did you mean "action"?); valid keys here: id, match, lifetime, action, description"#,
                #line
            ),
            (
                "POST", "/v1/faults",
                #"[{"action": {"type": "noResponse"}}, {"action": {"type": "respond", "reason": "Nope"}}]"#, 400,
                #"[1].action.reason: unknown reason "Nope"; expected one of BadCollapseId, …"#, #line
            ),
            ("POST", "/v1/faults", #"[5]"#, 400, "[0]: expected an object, got 5", #line),
            (
                "POST", "/v1/faults", #"{"id": "taken", "action": {"type": "noResponse"}}"#, 400,
                #"id: "taken" is already in use"#, #line
            ),
            (
                "POST", "/v1/faults", #"{"scenario": "apns-outge"}"#, 400,
                #"scenario: unknown scenario "apns-outge" (did you mean "apns-outage"?); expected one of \#(scenarios)"#,
                #line
            ),
            (
                "POST", "/v1/faults", #"{"scenario": 5}"#, 400,
                "scenario: expected a scenario name (one of \(scenarios)), got 5", #line
            ),
            (
                "POST", "/v1/faults", #"{"scenario": "flaky", "parameters": [1]}"#, 400,
                "parameters: expected an object of parameters, got an array", #line
            ),
            (
                "POST", "/v1/faults", #"{"scenario": "flaky", "parameters": {"percent": 101}}"#, 400,
                "parameters.percent: must be within 0 and 100, got 101", #line
            ),
            (
                "POST", "/v1/faults", #"{"scenario": "throttled"}"#, 400,
                "parameters.perSecond: required: a number of pushes per second per device token, above 0", #line
            ),
            (
                "POST", "/v1/faults", #"{"scenario": "flaky", "action": {"type": "noResponse"}}"#, 400,
                "action: unknown key; a scenario body takes only scenario and parameters", #line
            ),
            ("GET", "/v1/faults/nope", "", 404, "no fault rule with id nope", #line),
            ("DELETE", "/v1/faults/nope", "", 404, "no fault rule with id nope", #line),
            (
                "GET", "/v1/faults?verbose=1", "", 400,
                "unknown query parameter(s) 'verbose' for GET /v1/faults (allowed: none)", #line
            ),
            ("PUT", "/v1/faults", "", 405, "method PUT not allowed on /v1/faults; allowed: GET, POST, DELETE", #line),
            (
                "POST", "/v1/faults/taken", "", 405, "method POST not allowed on /v1/faults/{id}; allowed: GET, DELETE",
                #line
            ),
            ("GET", "/v1/faults/taken/x", "", 404, "no endpoint at /v1/faults/taken/x…", #line),
        ]
        for (method, target, body, status, message, line) in rows {
            let (got, json) = api.call(method, target, body: body, line: line)
            XCTAssertEqual(got, status, "\(method) \(target) \(body)", line: line)
            let error = json["error"] as? String ?? ""
            if message.hasSuffix("…") {
                XCTAssertTrue(error.hasPrefix(String(message.dropLast())), "\(error.debugDescription)", line: line)
            } else if message.hasPrefix("the body is not valid JSON") {
                XCTAssertTrue(error.hasPrefix(message), "\(error.debugDescription)", line: line)
            } else {
                XCTAssertEqual(error, message, "\(method) \(target) \(body)", line: line)
            }
        }
        XCTAssertEqual(api.faults.rules().map(\.rule.id), ["taken"], "no failed request added anything")
    }

    /// A control API whose directory holds connections 2 and 5.
    private static func apiWithTwoConnections() -> (ControlAPI, FakeConnectionDirectory) {
        let directory = FakeConnectionDirectory(
            [FakeConnectionDirectory.summary(id: 2), FakeConnectionDirectory.summary(id: 5)])
        let api = ControlAPI(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(),
            clock: { Double(F.now) / 1000 }, faults: FaultEngine(clock: { F.now }), connections: directory,
            status: { StoreFixtures.status() })
        return (api, directory)
    }

    /// `rolling-restart` adds no rule: it schedules the open connections' drains and says when.
    func testRollingRestartSchedulesTheOpenConnections() throws {
        let (api, directory) = Self.apiWithTwoConnections()
        let (status, json) = api.call(
            "POST", "/v1/faults",
            body: #"{"scenario":"rolling-restart","parameters":{"windowMs":4000,"drainMs":300,"seed":9}}"#)
        XCTAssertEqual(status, 201)
        XCTAssertEqual(faults(json).count, 0)
        XCTAssertEqual(api.faults.rules(), [])
        let restart = RollingRestart(windowMilliseconds: 4000, drainMilliseconds: 300, seed: 9)
        XCTAssertEqual(directory.restarts, [restart])
        let answer = try XCTUnwrap(json["rollingRestart"] as? [String: Any])
        XCTAssertEqual(answer["seed"] as? Int, 9)
        XCTAssertEqual(answer["windowMs"] as? Int, 4000)
        XCTAssertEqual(answer["drainMs"] as? Int, 300)
        let scheduled = try XCTUnwrap(answer["connections"] as? [[String: Any]])
        XCTAssertEqual(scheduled.map { $0["id"] as? Int }, [2, 5])
        XCTAssertEqual(
            scheduled.map { $0["goawayAfterMs"] as? Int },
            [2, 5].map { Int(restart.delayMilliseconds(forConnection: UInt64($0))) })
        let (bad, error) = api.call(
            "POST", "/v1/faults", body: #"{"scenario":"rolling-restart","parameters":{"windowMs":-5}}"#)
        XCTAssertEqual(bad, 400)
        XCTAssertEqual(
            error["error"] as? String, "parameters.windowMs: expected an integer from 0 to 86400000, got -5")
    }

    /// A rolling restart in progress shows in `GET /v1/faults`, refuses a second one (409), and
    /// `DELETE /v1/faults` cancels it, so it cannot reach the next test's connections.
    func testRollingRestartInProgressIsShownAndCancelled() throws {
        let (api, directory) = Self.apiWithTwoConnections()
        let body = #"{"scenario":"rolling-restart","parameters":{"windowMs":4000,"drainMs":300,"seed":9}}"#
        let (_, idle) = api.call("GET", "/v1/faults")
        XCTAssertNil(idle["rollingRestart"], "no restart: no key")
        XCTAssertEqual(api.call("POST", "/v1/faults", body: body).0, 201)
        directory.finishRestartMoment(of: 2)

        let (status, listed) = api.call("GET", "/v1/faults")
        XCTAssertEqual(status, 200)
        let running = try XCTUnwrap(listed["rollingRestart"] as? [String: Any])
        XCTAssertEqual(running["seed"] as? Int, 9)
        XCTAssertEqual(running["windowMs"] as? Int, 4000)
        XCTAssertEqual(running["drainMs"] as? Int, 300)
        XCTAssertEqual(running["elapsedMs"] as? Int, 100)
        let connections = try XCTUnwrap(running["connections"] as? [[String: Any]])
        XCTAssertEqual(connections.map { $0["id"] as? Int }, [2, 5])
        XCTAssertEqual(connections.map { $0["done"] as? Bool }, [true, false])
        let restart = RollingRestart(windowMilliseconds: 4000, drainMilliseconds: 300, seed: 9)
        XCTAssertEqual(
            connections.map { $0["goawayAfterMs"] as? Int },
            [2, 5].map { Int(restart.delayMilliseconds(forConnection: UInt64($0))) })

        let (conflict, error) = api.call("POST", "/v1/faults", body: body)
        XCTAssertEqual(conflict, 409)
        XCTAssertEqual(
            error["error"] as? String,
            "a rolling restart is in progress (seed 9; connections 5 still to go away); DELETE /v1/faults cancels it")
        XCTAssertEqual(directory.restarts.count, 1, "the second was not started")

        let (deleted, removed) = api.call("DELETE", "/v1/faults")
        XCTAssertEqual(deleted, 200)
        XCTAssertEqual(removed["removed"] as? Int, 0)
        XCTAssertEqual(removed["rollingRestartCancelled"] as? Bool, true)
        XCTAssertNil(api.call("GET", "/v1/faults").1["rollingRestart"])
        XCTAssertEqual(api.call("DELETE", "/v1/faults").1["rollingRestartCancelled"] as? Bool, false)
        XCTAssertEqual(api.call("POST", "/v1/faults", body: body).0, 201, "a new one may start after it")
    }
}
