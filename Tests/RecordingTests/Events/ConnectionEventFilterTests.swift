import XCTest

@testable import APNsCore
@testable import Recording
@testable import TestFixtures

final class ConnectionEventFilterTests: XCTestCase {
    private typealias E = EventFixtures

    func testEachFieldSelects() {
        // 2026-11-30T08:49:03.123Z
        let goaway = E.event(
            .goaway(errorCode: 0, lastStreamID: 3, debugData: [], closeAfterMilliseconds: 0),
            origin: .fault(ruleID: "f1", action: "goaway"), time: 1_796_028_543.1239)
        let rows: [(ConnectionEventFilter, Bool, UInt)] = [
            (ConnectionEventFilter(), true, #line),
            (ConnectionEventFilter(listener: "sandbox"), true, #line),
            (ConnectionEventFilter(listener: "production"), false, #line),
            (ConnectionEventFilter(environment: .sandbox), true, #line),
            (ConnectionEventFilter(environment: .production), false, #line),
            (ConnectionEventFilter(connectionID: 3), true, #line),
            (ConnectionEventFilter(connectionID: 4), false, #line),
            (ConnectionEventFilter(kinds: [.goaway]), true, #line),
            (ConnectionEventFilter(kinds: [.reset, .goaway]), true, #line),
            (ConnectionEventFilter(kinds: [.reset]), false, #line),
            (ConnectionEventFilter(origin: "fault"), true, #line),
            (ConnectionEventFilter(origin: "command"), false, #line),
            (ConnectionEventFilter(ruleID: "f1"), true, #line),
            (ConnectionEventFilter(ruleID: "f2"), false, #line),
            (ConnectionEventFilter(after: 0), true, #line),
            (ConnectionEventFilter(after: 1), false, #line),
            (ConnectionEventFilter(since: 1_796_028_543_123), true, #line),
            (ConnectionEventFilter(since: 1_796_028_543_124), false, #line),
            (ConnectionEventFilter(until: 1_796_028_543_124), true, #line),
            (ConnectionEventFilter(until: 1_796_028_543_123), false, #line),
            (ConnectionEventFilter(since: 1_796_028_543_000, until: 1_796_028_544_000), true, #line),
            (ConnectionEventFilter(listener: "sandbox", kinds: [.goaway], origin: "command"), false, #line),
        ]
        var stored = goaway
        stored.seq = 1
        for (filter, expected, line) in rows {
            XCTAssertEqual(filter.matches(stored), expected, "\(filter)", line: line)
        }
        let refused = E.event(.refused, origin: .listenerCondition, connection: nil)
        XCTAssertFalse(ConnectionEventFilter(connectionID: 0).matches(refused), "a refused connection has no id")
        XCTAssertFalse(ConnectionEventFilter(ruleID: "f1").matches(refused))
    }

    func testQueryParametersParse() throws {
        let rows: [([String: String], ConnectionEventFilter, UInt)] = [
            ([:], ConnectionEventFilter(), #line),
            (
                ["listener": "sandbox", "environment": "Production"],
                ConnectionEventFilter(listener: "sandbox", environment: .production), #line
            ),
            (["connectionId": "12", "after": "7"], ConnectionEventFilter(connectionID: 12, after: 7), #line),
            (["kind": "goaway"], ConnectionEventFilter(kinds: [.goaway]), #line),
            (
                ["kind": "goaway,reset,windowStallEnd"],
                ConnectionEventFilter(kinds: [.goaway, .reset, .windowStallEnd]), #line
            ),
            (
                ["origin": "idleTimeout", "ruleId": "f3"], ConnectionEventFilter(origin: "idleTimeout", ruleID: "f3"),
                #line
            ),
            (["since": "1796028543123"], ConnectionEventFilter(since: 1_796_028_543_123), #line),
            (
                ["since": "2026-11-30T08:49:03.123Z", "until": "2026-11-30T10:49:03.124+02:00"],
                ConnectionEventFilter(since: 1_796_028_543_123, until: 1_796_028_543_124), #line
            ),
        ]
        for (query, expected, line) in rows {
            XCTAssertEqual(try ConnectionEventFilter(query: query), expected, line: line)
        }
    }

    func testBadQueryParametersAre400NamingTheParameter() {
        let rows: [([String: String], String, UInt)] = [
            (["listener": ""], "listener must not be empty", #line),
            (["environment": "dev"], "environment must be sandbox or production", #line),
            (["connectionId": "-1"], "connectionId must be a non-negative integer (a connection id), got '-1'", #line),
            (["connectionId": "x"], "connectionId must be a non-negative integer", #line),
            (["after": "1.5"], "after must be a non-negative integer (a seq), got '1.5'", #line),
            (
                ["kind": "goawy"],
                "kind: unknown kind 'goawy' (did you mean 'goaway'?); expected one or more, comma-separated, of: opened, goaway,",
                #line
            ),
            (["kind": "goaway,"], "kind: unknown kind ''", #line),
            (
                ["origin": "faults"],
                "origin: unknown origin 'faults' (did you mean 'fault'?); expected one of: fault, command,", #line
            ),
            (
                ["since": "yesterday"],
                "since must be an ISO 8601 time such as 2026-11-30T08:49:03.123Z or an integer of milliseconds since the epoch, got 'yesterday'",
                #line
            ),
            (["until": "2026-13-01T00:00:00Z"], "until must be an ISO 8601 time", #line),
            (["since": "2000", "until": "2000"], "until must be later than since", #line),
        ]
        for (query, message, line) in rows {
            do {
                let filter = try ConnectionEventFilter(query: query)
                XCTFail("accepted \(query) as \(filter)", line: line)
            } catch {
                XCTAssertEqual(error.status, 400, line: line)
                XCTAssertTrue(error.message.hasPrefix(message), "\(error.message)", line: line)
            }
        }
    }
}
