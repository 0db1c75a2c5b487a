import Foundation
import JSONInput
import XCTest

@testable import APNsCore
@testable import Configuration
@testable import Faults

/// The configuration file's `faults` and `scenarios`, `--fault-scenario`, and their checks.
final class ConfigurationFaultsTests: XCTestCase {
    private static let now: Int64 = 1_700_000_000_000
    private static let respond503 = FaultAction.respond(FaultResponse(reason: .serviceUnavailable))

    private func parse(_ text: String) throws(ConfigurationError) -> Configuration {
        try ConfigurationFile.parse(Array(text.utf8), nowMilliseconds: Self.now)
    }

    func testRulesThenScenariosInOrder() throws {
        let configuration = try parse(
            """
            {
              // JSON5 inside rules too: comments, trailing commas.
              "faults": [
                { "id": "seq", "match": { "token": "ABCD" },
                  "action": { "type": "sequence", "steps": [
                    { "type": "respond", "status": 503, "reason": "ServiceUnavailable" }, "pass", ] } },
                { "description": "slow", "lifetime": { "times": 2 }, "action": { "type": "delay", "ms": 250 } },
              ],
              "scenarios": [
                { "name": "graceful-restart", "parameters": { "windowMs": 1000 } },
                { "name": "token-expiry" },
                { "name": "flaky", "parameters": { "percent": 12.5, "seed": 7 } },
                { "name": "apns-outage", "parameters": null },
              ],
            }
            """)
        let rules = configuration.faults
        XCTAssertEqual(rules.map(\.id), ["seq", nil, nil, nil, nil, nil])
        XCTAssertEqual(
            rules.map(\.description),
            [
                nil, "slow", "scenario graceful-restart", "scenario token-expiry",
                "scenario flaky", "scenario apns-outage",
            ])
        XCTAssertEqual(rules[0].match.token, "abcd")
        XCTAssertEqual(rules[0].action, .sequence([.action(Self.respond503), .pass]))
        XCTAssertEqual(rules[1].lifetime, .times(2))
        XCTAssertEqual(rules[1].action, .delay(milliseconds: 250, then: nil))
        XCTAssertEqual(
            rules[2].match.until, ISO8601Timestamp(epochMilliseconds: Self.now + 1000),
            "windows start when the file is read")
        XCTAssertEqual(rules[4].match.probability, 0.125)
        XCTAssertEqual(rules[4].match.seed, 7)
        XCTAssertEqual(rules[5].lifetime, .unlimited)
        XCTAssertEqual(rules[5].action, Self.respond503)
    }

    func testEmptyListsMeanNoRules() throws {
        XCTAssertEqual(try parse(#"{"faults": [], "scenarios": []}"#), Configuration())
        XCTAssertEqual(Configuration().faults, [])
    }

    func testTheRulesAreThoseTheControlAPIReads() throws {
        let json =
            #"{"id":"x","match":{"topic":"com.a","nth":2},"lifetime":{"until":"2026-11-30T09:00:00Z"},"action":{"type":"goaway","errorCode":"ENHANCE_YOUR_CALM","keepOpen":true}}"#
        let configuration = try parse(#"{"faults": [\#(json)]}"#)
        XCTAssertEqual(configuration.faults, [try FaultRule.decode(json: Array(json.utf8))])
    }

    func testErrorsNameTheField() {
        let rows: [ErrorRow<String>] = [
            ErrorRow(#"{"faults": {}}"#, "faults: expected an array of fault rule objects, got an object"),
            ErrorRow(#"{"faults": [5]}"#, "faults[0]: expected a fault rule object, got 5"),
            ErrorRow(
                #"{"faults": [{"action": {"type": "noResponse"}}, {}]}"#,
                #"faults[1].action: required: an action object with a "type""#),
            ErrorRow(
                #"{"faults": [{"action": {"type": "respond", "status": 200, "reason": "BadTopic"}}]}"#,
                "faults[0].action.status: must be 400-599, got 200"),
            ErrorRow(
                #"{"faults": [{"match": {"probability": 1.5}, "action": {"type": "noResponse"}}]}"#,
                "faults[0].match.probability: ", exact: false),
            ErrorRow(
                #"{"faults": [{"acton": {"type": "noResponse"}}]}"#,
                #"faults[0].acton: unknown key (did you mean "action"?)"#,
                exact: false),
            ErrorRow(
                #"{"faults": [{"action": {"type": "sequence", "steps": ["pass", {"type": "respond", "reason": "Nope"}]}}]}"#,
                #"faults[0].action.steps[1].reason: unknown reason "Nope""#, exact: false),
            ErrorRow(
                #"{"faults": [{"id": "a", "action": {"type": "noResponse"}}, {"id": "a", "action": {"type": "close"}}]}"#,
                #"faults[1].id: duplicate fault rule id "a" (also faults[0])"#),
            ErrorRow(
                #"{"faults": [{"id": "a b", "action": {"type": "noResponse"}}]}"#, "faults[0].id: must be 1 to 64",
                exact: false),
            ErrorRow(
                #"{"scenarios": "flaky"}"#,
                #"scenarios: expected an array of {"name", "parameters"} objects, got "flaky""#),
            ErrorRow(#"{"scenarios": [[]]}"#, "scenarios[0]: expected an object, got an array"),
            ErrorRow(
                #"{"scenarios": [{"nam": "flaky"}]}"#,
                #"scenarios[0].nam: unknown key (did you mean "name"?); valid keys here: name, parameters"#),
            ErrorRow(
                #"{"scenarios": [{"parameters": {}}]}"#,
                "scenarios[0].name: missing; expected one of apns-outage, flaky, token-expiry, graceful-restart, throttled, rolling-restart"
            ),
            ErrorRow(
                #"{"scenarios": [{"name": 5}]}"#, "scenarios[0].name: expected a scenario name (one of apns-outage, ",
                exact: false),
            ErrorRow(
                #"{"scenarios": [{"name": "flaky"}, {"name": "apns-outge"}]}"#,
                #"scenarios[1].name: unknown scenario "apns-outge" (did you mean "apns-outage"?); expected one of "#
                    + "apns-outage, flaky, token-expiry, graceful-restart, throttled, rolling-restart"),
            ErrorRow(
                #"{"scenarios": [{"name": "flaky", "parameters": [1]}]}"#,
                "scenarios[0].parameters: expected an object of parameters, got an array"),
            ErrorRow(
                #"{"scenarios": [{"name": "apns-outage", "parameters": {"durationMs": 0}}]}"#,
                "scenarios[0].parameters.durationMs: expected an integer from 1 to 31536000000, got 0"),
            ErrorRow(
                #"{"scenarios": [{"name": "flaky", "parameters": {"pct": 5}}]}"#,
                "scenarios[0].parameters.pct: unknown parameter of flaky; valid: percent, seed"),
            ErrorRow(
                #"{"scenarios": [{"name": "throttled"}]}"#,
                "scenarios[0].parameters.perSecond: required: a number of pushes per second per device token, above 0"),
        ]
        for row in rows {
            do {
                _ = try parse(row.input)
                XCTFail("parsed: \(row.input)", line: row.line)
            } catch {
                row.check(error.description)
            }
        }
    }

    func testHandBuiltRulesAreValidated() {
        let rows: [ErrorRow<[FaultRule]>] = [
            ErrorRow(
                [FaultRule(action: .respond(FaultResponse(status: 200, reason: .badTopic)))],
                "faults[0].action.status: must be 400-599, got 200"),
            ErrorRow(
                [FaultRule(action: .noResponse), FaultRule(lifetime: .times(0), action: .noResponse)],
                "faults[1].lifetime.times: must be at least 1, got 0"),
            ErrorRow(
                [
                    FaultRule(id: "x", action: .noResponse), FaultRule(action: .noResponse),
                    FaultRule(id: "x", action: .noResponse),
                ],
                #"faults[2].id: duplicate fault rule id "x" (also faults[0])"#),
        ]
        for row in rows {
            do {
                try Configuration(faults: row.input).validate()
                XCTFail("validated", line: row.line)
            } catch {
                row.check(error.description)
            }
        }
        XCTAssertNoThrow(
            try Configuration(faults: [
                FaultRule(id: "a", action: .noResponse), FaultRule(action: .noResponse),
                FaultRule(action: .noResponse),
            ]).validate())
    }

    // MARK: --fault-scenario

    func testFaultScenarioOptionAppendsAfterTheFile() throws {
        guard case .serve(let alone) = try CommandLineParser.parse(["--fault-scenario", "apns-outage"]) else {
            return XCTFail("not a serve command")
        }
        XCTAssertEqual(alone.faults, [FaultRule(action: Self.respond503, description: "scenario apns-outage")])
        XCTAssertEqual(try CommandLineParser.parse(["--fault-scenario=apns-outage"]), .serve(alone))

        let directory = try makeTemporaryDirectory(self)
        let file = directory.appendingPathComponent("faults.json")
        try Data(
            #"{"faults": [{"id": "first", "action": {"type": "noResponse"}}], "scenarios": [{"name": "token-expiry"}]}"#
                .utf8
        )
        .write(to: file)
        guard case .serve(let both) = try CommandLineParser.parse(["--config", file.path, "--fault-scenario", "flaky"])
        else {
            return XCTFail("not a serve command")
        }
        XCTAssertEqual(both.faults.map(\.description), [nil, "scenario token-expiry", "scenario flaky"])
        XCTAssertEqual(both.faults[2].match.probability, 0.1, "the default parameters")
    }

    func testFaultScenarioOptionErrors() {
        let rows: [ErrorRow<[String]>] = [
            ErrorRow(
                ["--fault-scenario", "flakey"],
                "--fault-scenario: expected one of apns-outage, flaky, token-expiry, graceful-restart, throttled, rolling-restart, "
                    + "got 'flakey' (did you mean 'flaky'?)"),
            ErrorRow(
                ["--fault-scenario", "throttled"],
                "--fault-scenario: throttled needs parameters (parameters.perSecond: required: a number of pushes per "
                    + "second per device token, above 0); give it under \"scenarios\" in the configuration file"),
            ErrorRow(
                ["--fault-scenario", "rolling-restart"],
                "--fault-scenario: rolling-restart makes no rule: it drains the connections open when it starts, "
                    + "so only POST /v1/faults starts it, on a running server: "
                    + #"{"scenario": "rolling-restart", "parameters": {...}}"#),
            ErrorRow(
                ["--fault-scenario", "flaky", "--fault-scenario", "token-expiry"],
                "option --fault-scenario given more than once"),
            ErrorRow(["--fault-scenario"], "option --fault-scenario needs a value (NAME)"),
        ]
        assertCommandLineErrors(rows, suggestsHelp: true)
    }
}
