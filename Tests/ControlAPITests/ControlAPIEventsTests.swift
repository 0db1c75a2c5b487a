import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import Recording
@testable import TestFixtures

/// `/v1/events`: list, clear, wait, stats, errors, and the JSON of every kind.
final class ControlAPIEventsTests: XCTestCase {
    private typealias F = StoreFixtures
    private typealias E = EventFixtures

    private func makeAPI(events: ConnectionEventStore = ConnectionEventStore()) -> ControlAPI {
        ControlAPI(
            store: DeliveryStore(), registry: DeviceRegistry(devices: []), events: events, status: { F.status() })
    }

    private static let goaway = ConnectionEventAction.goaway(
        errorCode: 0, lastStreamID: 3,
        debugData: Array(#"{"reason":"Shutdown"}"#.utf8),
        closeAfterMilliseconds: 800)

    func testListFiltersAndPages() {
        let api = makeAPI()
        api.events.append(E.event(.opened(alpn: "h2", tls: true, maxConcurrentStreams: 1000), origin: .lifecycle))
        api.events.append(E.event(Self.goaway, origin: .fault(ruleID: "f1", action: "goaway")))
        api.events.append(
            E.event(.reset(when: nil), origin: .command, listener: "prod", environment: .production, connection: 4))
        api.events.append(E.event(.refused, origin: .listenerCondition, connection: nil))
        // (target, expected seqs, more)
        let rows: [(String, [Int], Bool, UInt)] = [
            ("/v1/events", [1, 2, 3, 4], false, #line),
            ("/v1/events?kind=goaway", [2], false, #line),
            ("/v1/events?kind=goaway,reset", [2, 3], false, #line),
            ("/v1/events?ruleId=f1", [2], false, #line),
            ("/v1/events?origin=lifecycle", [1], false, #line),
            ("/v1/events?connectionId=3", [1, 2], false, #line),
            ("/v1/events?listener=prod", [3], false, #line),
            ("/v1/events?environment=sandbox", [1, 2, 4], false, #line),
            ("/v1/events?after=2", [3, 4], false, #line),
            ("/v1/events?limit=2", [1, 2], true, #line),
            ("/v1/events?since=1796028543123&until=1796028543124", [1, 2, 3, 4], false, #line),
            ("/v1/events?since=2026-11-30T08:49:03.124Z", [], false, #line),
        ]
        for (target, seqs, more, line) in rows {
            let (status, json) = api.call("GET", target, line: line)
            XCTAssertEqual(status, 200, line: line)
            XCTAssertEqual(
                (json["events"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int }, seqs, target, line: line)
            XCTAssertEqual(json["more"] as? Bool, more, line: line)
            XCTAssertEqual(json["lastSeq"] as? Int, 4, line: line)
            XCTAssertEqual(json["evicted"] as? Int, 0, line: line)
        }
    }

    func testClearKeepsNumberingAndStats() {
        let api = makeAPI(events: ConnectionEventStore(capacity: 2))
        for _ in 1...3 { api.events.append(E.event(Self.goaway)) }
        var (status, json) = api.call("GET", "/v1/stats")
        XCTAssertEqual(status, 200)
        let before = json["events"] as? [String: Any]
        XCTAssertEqual(before?["recorded"] as? Int, 3)
        XCTAssertEqual(before?["records"] as? Int, 2)
        XCTAssertEqual(before?["evicted"] as? Int, 1)
        XCTAssertEqual(before?["capacity"] as? Int, 2)
        XCTAssertEqual(before?["byKind"] as? [String: Int], ["goaway": 3])
        (status, json) = api.call("DELETE", "/v1/events")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["cleared"] as? Int, 2)
        XCTAssertEqual(json["lastSeq"] as? Int, 3)
        (_, json) = api.call("GET", "/v1/events")
        XCTAssertEqual((json["events"] as? [Any])?.count, 0)
        XCTAssertEqual(json["lastSeq"] as? Int, 3)
        (_, json) = api.call("GET", "/v1/stats")
        let after = json["events"] as? [String: Any]
        XCTAssertEqual(after?["recorded"] as? Int, 3)
        XCTAssertEqual(after?["records"] as? Int, 0)
        XCTAssertEqual(after?["byKind"] as? [String: Int], ["goaway": 3])
    }

    func testWaitCompletesWhenEnoughEventsMatch() throws {
        let api = makeAPI()
        api.events.append(E.event(.reset(when: nil)))
        guard
            case .wait(var wait) = api.handle(
                ControlRequest(method: "GET", target: "/v1/events/wait?kind=goaway&count=2&timeoutMs=1000"))
        else {
            return XCTFail("did not wait")
        }
        XCTAssertEqual(wait.timeoutMilliseconds, 1000)
        XCTAssertNil(api.waitResult(&wait, timedOut: false), "nothing changed")
        api.events.append(E.event(Self.goaway))
        XCTAssertNil(api.waitResult(&wait, timedOut: false), "one of two")
        api.events.append(E.event(.settings(maxConcurrentStreams: 1, previous: 1000)))
        XCTAssertNil(api.waitResult(&wait, timedOut: false), "not a goaway")
        api.events.append(E.event(Self.goaway))
        let response = try XCTUnwrap(api.waitResult(&wait, timedOut: false))
        let json = F.object(response.body)
        XCTAssertEqual(json["complete"] as? Bool, true)
        XCTAssertEqual(json["count"] as? Int, 2)
        XCTAssertEqual(json["matched"] as? Int, 2)
        XCTAssertEqual((json["events"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int }, [2, 4])
        XCTAssertEqual(json["lastSeq"] as? Int, 4)
    }

    func testWaitAnswersAtOnceOrAtTheTimeout() throws {
        let api = makeAPI()
        api.events.append(E.event(Self.goaway))
        var (status, json) = api.call("GET", "/v1/events/wait?kind=goaway")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["complete"] as? Bool, true, "already there: no wait")
        (status, json) = api.call("GET", "/v1/events/wait?kind=reset&timeoutMs=0")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["complete"] as? Bool, false)
        XCTAssertEqual(json["matched"] as? Int, 0)
        guard case .wait(var wait) = api.handle(ControlRequest(method: "GET", target: "/v1/events/wait?kind=reset"))
        else {
            return XCTFail("did not wait")
        }
        XCTAssertEqual(wait.timeoutMilliseconds, ControlAPI.defaultWaitMilliseconds)
        let response = try XCTUnwrap(api.waitResult(&wait, timedOut: true))
        XCTAssertEqual(F.object(response.body)["complete"] as? Bool, false)
    }

    func testErrorsAre4xxNamingTheProblem() {
        let api = makeAPI()
        let rows: [(String, String, Int, String, UInt)] = [
            ("GET", "/v1/events?kind=gone", 400, "kind: unknown kind 'gone'", #line),
            ("GET", "/v1/events?count=1", 400, "unknown query parameter(s) 'count'", #line),
            ("GET", "/v1/events?limit=-1", 400, "limit must be at least 0", #line),
            ("GET", "/v1/events?token=aa", 400, "unknown query parameter(s) 'token'", #line),
            ("GET", "/v1/events?origin=x&origin=y", 400, "'origin' given more than once", #line),
            ("GET", "/v1/events/wait?count=0", 400, "count must be at least 1", #line),
            ("GET", "/v1/events/wait?timeoutMs=300001", 400, "timeoutMs must be between 0 and 300000", #line),
            ("GET", "/v1/events/wait?limit=3", 400, "unknown query parameter(s) 'limit'", #line),
            ("GET", "/v1/events/wait?since=soon", 400, "since must be an ISO 8601 time", #line),
            ("POST", "/v1/events", 405, "allowed: GET, DELETE", #line),
            ("DELETE", "/v1/events/wait", 405, "allowed: GET", #line),
            ("GET", "/v1/events/7", 404, "no endpoint at /v1/events/7", #line),
        ]
        for (method, target, status, message, line) in rows {
            let (got, json) = api.call(method, target, line: line)
            XCTAssertEqual(got, status, target, line: line)
            let error = json["error"] as? String ?? ""
            XCTAssertTrue(error.contains(message), "\(target): \(error)", line: line)
        }
    }

    /// Every kind renders the common keys and its own details, each always present.
    func testEveryKindRendersItsDetails() {
        let rows: [(ConnectionEventAction, ConnectionEventOrigin, [String: Any], String, UInt)] = [
            (
                .opened(alpn: nil, tls: false, maxConcurrentStreams: 1), .lifecycle,
                ["alpn": NSNull(), "tls": false, "maxConcurrentStreams": 1],
                "opened (cleartext, ALPN none, MAX_CONCURRENT_STREAMS 1)", #line
            ),
            (
                Self.goaway, .fault(ruleID: "f1", action: "goaway"),
                [
                    "errorCode": "NO_ERROR", "lastStreamId": 3, "debugData": #"{"reason":"Shutdown"}"#,
                    "reason": "Shutdown", "closeAfterMs": 800,
                ],
                #"rule f1 (goaway): GOAWAY NO_ERROR (0) last-stream-id 3, debug data {"reason":"Shutdown"}, close after 800 ms"#,
                #line
            ),
            (
                .goaway(errorCode: 99, lastStreamID: 0, debugData: Array("plain".utf8), closeAfterMilliseconds: nil),
                .command,
                [
                    "errorCode": 99, "lastStreamId": 0, "debugData": "plain", "reason": NSNull(),
                    "closeAfterMs": NSNull(),
                ],
                "control API command: GOAWAY 99 last-stream-id 0, debug data plain, kept open", #line
            ),
            (
                .goaway(errorCode: 0, lastStreamID: 5, debugData: [], closeAfterMilliseconds: nil), .shutdown,
                [
                    "errorCode": "NO_ERROR", "lastStreamId": 5, "debugData": "", "reason": NSNull(),
                    "closeAfterMs": NSNull(),
                ],
                "shutdown: GOAWAY NO_ERROR (0) last-stream-id 5, no debug data, kept open", #line
            ),
            (
                .close(when: .afterResponse), .fault(ruleID: "f2", action: "close"), ["when": "after-response"],
                "rule f2 (close): close (TCP FIN) after-response", #line
            ),
            (.reset(when: nil), .idleTimeout, ["when": NSNull()], "idle timeout: reset (TCP RST)", #line),
            (
                .settings(maxConcurrentStreams: 1, previous: 1000), .streamProfile,
                ["maxConcurrentStreams": 1, "previousMaxConcurrentStreams": 1000],
                "apple-observed stream profile: SETTINGS MAX_CONCURRENT_STREAMS 1000 -> 1", #line
            ),
            (
                .windowStallStart(milliseconds: 1000), .fault(ruleID: "f3", action: "withholdWindowUpdate"),
                ["durationMs": 1000],
                "rule f3 (withholdWindowUpdate): no WINDOW_UPDATE for 1000 ms", #line
            ),
            (
                .windowStallEnd(milliseconds: 1002, withheldBytes: 65535),
                .fault(ruleID: "f3", action: "withholdWindowUpdate"),
                ["durationMs": 1002, "withheldBytes": 65535],
                "rule f3 (withholdWindowUpdate): WINDOW_UPDATE resumed after 1002 ms, 65535 bytes acknowledged", #line
            ),
            (
                .handshakeDelay(milliseconds: 1200), .listenerCondition, ["durationMs": 1200],
                "listener condition: handshake delayed 1200 ms", #line
            ),
            (.silentAccept, .listenerCondition, [:], "listener condition: accepted silently, never answered", #line),
            (.refused, .listenerCondition, [:], "listener condition: refused with a TCP reset", #line),
            (
                .blackhole, .command, [:],
                "control API command: blackholed: nothing answered from now on, socket kept open",
                #line
            ),
            (
                .goaway(
                    errorCode: 0, lastStreamID: 0, debugData: Array(#"{"reason":"BadCertificate"}"#.utf8),
                    closeAfterMilliseconds: 0),
                .certificate,
                [
                    "errorCode": "NO_ERROR", "lastStreamId": 0, "debugData": #"{"reason":"BadCertificate"}"#,
                    "reason": "BadCertificate", "closeAfterMs": 0,
                ],
                #"certificate rejected: GOAWAY NO_ERROR (0) last-stream-id 0, debug data {"reason":"BadCertificate"}, close after 0 ms"#,
                #line
            ),
            (
                .closed(requests: 7, ageMilliseconds: 1500), .lifecycle, ["requests": 7, "ageMs": 1500],
                "closed after 7 requests and 1500 ms", #line
            ),
            (
                .legacyOpened(transport: "binary", tls: true, certificateSubject: "UID=com.a", topic: "com.a"),
                .lifecycle, ["protocol": "binary", "tls": true, "certificateSubject": "UID=com.a", "topic": "com.a"],
                "binary connection opened (TLS, certificate UID=com.a, topic com.a)", #line
            ),
            (
                .legacyClosed(transport: "binary", reason: "error-packet", notifications: 3, ageMilliseconds: 40),
                .lifecycle, ["protocol": "binary", "reason": "error-packet", "notifications": 3, "ageMs": 40],
                "binary connection closed (error-packet) after 3 notifications and 40 ms", #line
            ),
            (
                .errorPacket(status: 8, statusName: "Invalid token", identifier: 7), .lifecycle,
                ["status": 8, "statusName": "Invalid token", "identifier": 7],
                "error packet status 8 (Invalid token), identifier 7", #line
            ),
            (
                .feedbackSent(tuples: 1, tokens: ["aa"]), .lifecycle, ["tuples": 1, "tokens": ["aa"]],
                "feedback: 1 tuple written", #line
            ),
        ]
        XCTAssertEqual(Set(rows.map(\.0.kind)), Set(ConnectionEventKind.allCases), "a row per kind")
        for (action, origin, details, description, line) in rows {
            var event = E.event(action, origin: origin, connection: action == .refused ? nil : 3)
            event.seq = 9
            let json = F.object(encoding: event)
            XCTAssertEqual(
                Set(json.keys),
                [
                    "seq", "at", "kind", "listener", "environment", "connectionId", "peer", "origin",
                    "ruleId", "action", "description", "details",
                ], line: line)
            XCTAssertEqual(json["seq"] as? Int, 9, line: line)
            XCTAssertEqual(json["at"] as? String, "2026-11-30T08:49:03.123Z", line: line)
            XCTAssertEqual(json["kind"] as? String, action.kind.rawValue, line: line)
            XCTAssertEqual(json["listener"] as? String, "sandbox", line: line)
            XCTAssertEqual(json["environment"] as? String, "sandbox", line: line)
            XCTAssertEqual(json["peer"] as? String, "127.0.0.1:50000", line: line)
            XCTAssertEqual(json["origin"] as? String, origin.name, line: line)
            if action == .refused {
                XCTAssertTrue(json["connectionId"] is NSNull, line: line)
            } else {
                XCTAssertEqual(json["connectionId"] as? Int, 3, line: line)
            }
            if case .fault(let id, let type) = origin {
                XCTAssertEqual(json["ruleId"] as? String, id, line: line)
                XCTAssertEqual(json["action"] as? String, type, line: line)
            } else {
                XCTAssertTrue(json["ruleId"] is NSNull && json["action"] is NSNull, line: line)
            }
            XCTAssertEqual(json["description"] as? String, description, line: line)
            let rendered = json["details"] as? [String: Any] ?? ["missing": true]
            XCTAssertEqual(
                NSDictionary(dictionary: rendered), NSDictionary(dictionary: details), "\(action.kind)", line: line)
        }
    }
}
