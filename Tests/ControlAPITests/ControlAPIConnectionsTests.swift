import HTTPFields
import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import Faults
@testable import Recording
@testable import TestFixtures

/// `/v1/connections`: list the live connections and GOAWAY, close or reset one, through a fake
/// `ConnectionDirectory`.
final class ControlAPIConnectionsTests: XCTestCase {
    private typealias Fake = FakeConnectionDirectory

    private func makeAPI(_ directory: FakeConnectionDirectory?) -> ControlAPI {
        ControlAPI(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(), connections: directory,
            status: { StoreFixtures.status() })
    }

    func testListIsSortedByIDWithEveryField() {
        let api = makeAPI(Fake([Fake.summary(id: 7, peer: "[::1]:50001"), Fake.summary(id: 2)]))
        let (status, json) = api.call("GET", "/v1/connections")
        XCTAssertEqual(status, 200)
        let list = json["connections"] as? [[String: Any]] ?? []
        XCTAssertEqual(list.map { $0["id"] as? Int }, [2, 7])
        XCTAssertEqual(list.last?["peer"] as? String, "[::1]:50001")
        XCTAssertEqual(list.first?["ageMs"] as? Int, 1500)
        XCTAssertEqual(list.first?["alpn"] as? String, "h2")
        XCTAssertEqual(list.first?["environment"] as? String, "sandbox")
    }

    func testWithoutADirectoryNothingIsOpen() {
        let api = makeAPI(nil)
        let (status, json) = api.call("GET", "/v1/connections")
        XCTAssertEqual(status, 200)
        XCTAssertEqual((json["connections"] as? [Any])?.count, 0)
        for action in ["goaway", "close", "reset"] {
            let (status, json) = api.call("POST", "/v1/connections/1/\(action)")
            XCTAssertEqual(status, 404, action)
            XCTAssertEqual(json["error"] as? String, "no open connection with id 1", action)
        }
    }

    /// `POST /v1/connections/goaway|close|reset` act on every open connection, or on one
    /// listener's, and answer the ids acted on (issue 13).
    func testBulkCommandsActOnEveryConnectionOrOneListenersAndNameTheIds() {
        let fake = Fake(
            [
                Fake.summary(id: 5, listener: "production"), Fake.summary(id: 1),
                Fake.summary(id: 3, listener: "production"), Fake.summary(id: 4),
            ], withoutSession: [4])
        let api = makeAPI(fake)
        let (status, json) = api.call("POST", "/v1/connections/goaway")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["action"] as? String, "goaway")
        XCTAssertEqual(json["ids"] as? [Int], [1, 3, 5], "4 cannot take a GOAWAY yet")
        let shutdown = ConnectionCommand.goaway(errorCode: 0, reason: "Shutdown", closeAfterMilliseconds: 0)
        XCTAssertEqual(fake.performed.map(\.id), [1, 3, 5])
        XCTAssertEqual(fake.performed.first?.command, shutdown)
        let (resetStatus, reset) = api.call("POST", "/v1/connections/reset?listener=production")
        XCTAssertEqual(resetStatus, 200)
        XCTAssertEqual(reset["action"] as? String, "reset")
        XCTAssertEqual(reset["ids"] as? [Int], [3, 5])
        let (_, close) = api.call("POST", "/v1/connections/close")
        XCTAssertEqual(close["ids"] as? [Int], [1, 4])
        let (_, none) = api.call("POST", "/v1/connections/close")
        XCTAssertEqual(none["ids"] as? [Int], [])
        XCTAssertEqual(api.call("POST", "/v1/connections/close?peer=x").0, 400, "only listener is a parameter")
    }

    /// `?listener=` takes the directory's other listeners (binary, feedback) as well as the HTTP/2
    /// ones; a name of neither is 404.
    func testBulkCommandsTakeTheBinaryListenersNames() {
        var binary = Fake.summary(id: 1 << 32, listener: "binary")
        binary.transport = "binary"
        let fake = Fake([Fake.summary(id: 1), binary], otherListenerNames: ["binary", "feedback"])
        let api = ControlAPI(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(), connections: fake,
            listenerConditions: ListenerConditionsInForce(listeners: [("sandbox", .sandbox)]),
            status: { StoreFixtures.status() })
        let (status, json) = api.call("POST", "/v1/connections/close?listener=binary")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["ids"] as? [Int], [1 << 32])
        XCTAssertEqual(api.call("POST", "/v1/connections/close?listener=feedback").0, 200, "no connection: none")
        XCTAssertEqual(api.call("POST", "/v1/connections/close?listener=nope").0, 404)
    }

    func testDrainBodiesOneAndAll() {
        let fake = Fake([Fake.summary(id: 1), Fake.summary(id: 2)])
        let api = makeAPI(fake)
        let (status, json) = api.call("POST", "/v1/connections/1/drain")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["action"] as? String, "drain")
        XCTAssertEqual(api.call("POST", "/v1/connections/2/drain", body: #"{"reason":null,"maxMs":250}"#).0, 200)
        let (_, all) = api.call("POST", "/v1/connections/drain", body: #"{"reason":"IdleTimeout"}"#)
        XCTAssertEqual(all["ids"] as? [Int], [1, 2])
        XCTAssertEqual(
            fake.performed.map(\.command),
            [
                .drain(reason: "Shutdown", maxMilliseconds: 5000), .drain(reason: nil, maxMilliseconds: 250),
                .drain(reason: "IdleTimeout", maxMilliseconds: 5000),
                .drain(reason: "IdleTimeout", maxMilliseconds: 5000),
            ])
        for bad in [#"{"maxMs":0}"#, #"{"maxMs":"5"}"#, #"{"closeAfterMs":1}"#, #"{"reason":3}"#] {
            XCTAssertEqual(api.call("POST", "/v1/connections/1/drain", body: bad).0, 400, bad)
        }
    }

    func testBlackholeOneAndAll() {
        let fake = Fake([Fake.summary(id: 2), Fake.summary(id: 1)])
        let api = makeAPI(fake)
        let (status, json) = api.call("POST", "/v1/connections/2/blackhole")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["action"] as? String, "blackhole")
        XCTAssertEqual(json["id"] as? Int, 2)
        XCTAssertEqual(api.call("POST", "/v1/connections/9/blackhole").0, 404)
        let (_, all) = api.call("POST", "/v1/connections/blackhole")
        XCTAssertEqual(all["action"] as? String, "blackhole")
        XCTAssertEqual(all["ids"] as? [Int], [1, 2])
        XCTAssertEqual(
            fake.performed,
            [.init(id: 2, command: .blackhole), .init(id: 1, command: .blackhole), .init(id: 2, command: .blackhole)])
    }

    func testGoawayToAConnectionWithoutASessionIsAConflict() {
        let fake = Fake([Fake.summary(id: 3)], withoutSession: [3])
        let api = makeAPI(fake)
        let (status, json) = api.call("POST", "/v1/connections/3/goaway")
        XCTAssertEqual(status, 409)
        XCTAssertEqual(json["error"] as? String, "connection 3: no HTTP/2 session yet")
        XCTAssertEqual(fake.performed, [])
        XCTAssertEqual(api.call("POST", "/v1/connections/3/reset").0, 200, "close and reset still work")
    }

    func testGoawayBodies() {
        let shutdown = ConnectionCommand.goaway(errorCode: 0, reason: "Shutdown", closeAfterMilliseconds: 0)
        // (body, the command it must give)
        let rows: [(String, ConnectionCommand, UInt)] = [
            ("", shutdown, #line),
            (" \r\n", shutdown, #line),
            ("{}", shutdown, #line),
            (#"{"errorCode": null}"#, shutdown, #line),
            (
                #"{"errorCode": "enhance_your_calm", "reason": null, "closeAfterMs": null}"#,
                .goaway(errorCode: 11, reason: nil, closeAfterMilliseconds: nil), #line
            ),
            (
                #"{"errorCode": 7, "reason": "BadCertificateEnvironment", "closeAfterMs": 500}"#,
                .goaway(errorCode: 7, reason: "BadCertificateEnvironment", closeAfterMilliseconds: 500), #line
            ),
            (
                #"{"errorCode": 4294967295, "closeAfterMs": 86400000}"#,
                .goaway(errorCode: 4_294_967_295, reason: "Shutdown", closeAfterMilliseconds: 86_400_000), #line
            ),
        ]
        for (body, command, line) in rows {
            let directory = Fake([Fake.summary(id: 4)])
            let (status, json) = makeAPI(directory).call("POST", "/v1/connections/4/goaway", body: body, line: line)
            XCTAssertEqual(status, 200, body, line: line)
            XCTAssertEqual(json["id"] as? Int, 4, line: line)
            XCTAssertEqual(json["action"] as? String, "goaway", line: line)
            XCTAssertEqual(directory.performed, [Fake.Performed(id: 4, command: command)], body, line: line)
            XCTAssertEqual(
                directory.connections().count, 1, "a GOAWAY leaves the connection to the transport", line: line)
        }
    }

    func testCloseAndReset() {
        let directory = Fake([Fake.summary(id: 1), Fake.summary(id: 2)])
        let api = makeAPI(directory)
        var (status, json) = api.call("POST", "/v1/connections/1/close")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["action"] as? String, "close")
        // These commands take no body: one is refused (400, nothing done), as an unknown key is.
        (status, json) = api.call("POST", "/v1/connections/2/reset", body: "ignored")
        XCTAssertEqual(status, 400)
        XCTAssertEqual(json["error"] as? String, "the reset command takes no body (got 7 bytes)")
        XCTAssertEqual(api.call("POST", "/v1/connections/reset", body: #"{"x":1}"#).0, 400)
        XCTAssertEqual(api.call("POST", "/v1/connections/2/blackhole", body: "[]").0, 400)
        XCTAssertEqual(directory.performed, [Fake.Performed(id: 1, command: .close)])
        (status, json) = api.call("POST", "/v1/connections/2/reset", body: " \n")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["action"] as? String, "reset")
        XCTAssertEqual(json["id"] as? Int, 2)
        XCTAssertEqual(
            directory.performed, [Fake.Performed(id: 1, command: .close), Fake.Performed(id: 2, command: .reset)])
        XCTAssertEqual((api.call("GET", "/v1/connections").1["connections"] as? [Any])?.count, 0)
        XCTAssertEqual(api.call("POST", "/v1/connections/1/close").0, 404, "already closed")
    }

    func testErrorTable() {
        let directory = Fake([Fake.summary(id: 1)])
        let api = makeAPI(directory)
        // (method, target, body, status, the error message)
        let rows: [(String, String, String, Int, String, UInt)] = [
            (
                "POST", "/v1/connections/abc/close", "", 400, "connection id must be a non-negative integer, got 'abc'",
                #line
            ),
            (
                "POST", "/v1/connections/-1/reset", "", 400, "connection id must be a non-negative integer, got '-1'",
                #line
            ),
            (
                "POST", "/v1/connections/+1/reset", "", 400, "connection id must be a non-negative integer, got '+1'",
                #line
            ),
            (
                "POST", "/v1/connections/18446744073709551616/goaway", "", 400,
                "connection id must be a non-negative integer, got '18446744073709551616'", #line
            ),
            (
                "POST", "/v1/connections/x/goaway", "[", 400, "connection id must be a non-negative integer, got 'x'",
                #line
            ),
            ("POST", "/v1/connections/99/close", "", 404, "no open connection with id 99", #line),
            ("POST", "/v1/connections/99/goaway", "", 404, "no open connection with id 99", #line),
            (
                "POST", "/v1/connections/1/goaway", "[1]", 400,
                #"body must be empty or a JSON object like {"errorCode": "NO_ERROR", "reason": "Shutdown", "closeAfterMs": 0}: expected an object, got an array"#,
                #line
            ),
            (
                "POST", "/v1/connections/1/goaway", "{oops", 400,
                #"the body is not valid JSON: line 1, column 2: expected a key in double quotes, got 'o'; expected empty or a JSON object like {"errorCode": "NO_ERROR", "reason": "Shutdown", "closeAfterMs": 0}"#,
                #line
            ),
            (
                "POST", "/v1/connections/1/goaway", #"{"colour": 1, "code": 2}"#, 400,
                "code: unknown key; valid keys here: errorCode, reason, closeAfterMs", #line
            ),
            (
                "POST", "/v1/connections/1/goaway", #"{"reasn": "x"}"#, 400,
                #"reasn: unknown key (did you mean "reason"?); valid keys here: errorCode, reason, closeAfterMs"#, #line
            ),
            (
                "POST", "/v1/connections/1/goaway", #"{"errorCode": "NO_ERRO"}"#, 400,
                #"errorCode: unknown error code "NO_ERRO" (did you mean "NO_ERROR"?); expected \#(HTTP2ErrorCode.expected)"#,
                #line
            ),
            (
                "POST", "/v1/connections/1/goaway", #"{"errorCode": -1}"#, 400,
                "errorCode: expected \(HTTP2ErrorCode.expected), got -1", #line
            ),
            (
                "POST", "/v1/connections/1/goaway", #"{"errorCode": 4294967296}"#, 400,
                "errorCode: expected \(HTTP2ErrorCode.expected), got 4294967296", #line
            ),
            (
                "POST", "/v1/connections/1/goaway", #"{"errorCode": true}"#, 400,
                "errorCode: expected \(HTTP2ErrorCode.expected), got true", #line
            ),
            (
                "POST", "/v1/connections/1/goaway", #"{"reason": 5}"#, 400, "reason: expected a string or null, got 5",
                #line
            ),
            (
                "POST", "/v1/connections/1/goaway", #"{"closeAfterMs": -1}"#, 400,
                "closeAfterMs: expected an integer of milliseconds from 0 to 86400000, or null to keep the connection open, got -1",
                #line
            ),
            (
                "POST", "/v1/connections/1/goaway", #"{"closeAfterMs": 1.5}"#, 400,
                "closeAfterMs: expected an integer of milliseconds from 0 to 86400000, or null to keep the connection open, got 1.5",
                #line
            ),
            (
                "POST", "/v1/connections/1/goaway", #"{"closeAfterMs": "100"}"#, 400,
                #"closeAfterMs: expected an integer of milliseconds from 0 to 86400000, or null to keep the connection open, got "100""#,
                #line
            ),
            (
                "GET", "/v1/connections/1/goaway", "", 405,
                "method GET not allowed on /v1/connections/{id}/goaway; allowed: POST", #line
            ),
            ("DELETE", "/v1/connections", "", 405, "method DELETE not allowed on /v1/connections; allowed: GET", #line),
            (
                "POST", "/v1/connections/1/close?now=1", "", 400,
                "unknown query parameter(s) 'now' for POST /v1/connections/{id}/close (allowed: none)", #line
            ),
        ]
        for (method, target, body, status, message, line) in rows {
            let (got, json) = api.call(method, target, body: body, line: line)
            XCTAssertEqual(got, status, "\(method) \(target) \(body)", line: line)
            XCTAssertEqual(json["error"] as? String, message, "\(method) \(target) \(body)", line: line)
        }
        XCTAssertEqual(api.call("POST", "/v1/connections/1/shutdown").0, 404, "no such action")
        XCTAssertEqual(directory.performed, [], "no failed request reached the connection")
    }
}
