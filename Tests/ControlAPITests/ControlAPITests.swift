import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import JSONSupport
@testable import Recording
@testable import TestFixtures

final class ControlAPITests: XCTestCase {
    private typealias F = StoreFixtures

    private func makeAPI(capacity: Int = 100, now: Double = 1_796_028_543.5) -> ControlAPI {
        ControlAPI(
            store: DeliveryStore(capacity: capacity),
            registry: DeviceRegistry(devices: [
                DeviceRegistration(
                    token: "aabb", topic: "com.a",
                    environment: .sandbox)
            ]),
            clock: { now }, status: { F.status() })
    }

    /// Sends one request and expects an immediate answer.
    private func call(
        _ api: ControlAPI, _ method: String, _ target: String, body: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) -> (Int, [String: Any], ControlResponse) {
        let response = api.respond(method, target, body: body, file: file, line: line)
        return (response.status, F.object(response.body), response)
    }

    func testErrorTable() {
        let api = makeAPI()
        // (method, target, body, status, text the error must contain)
        let rows: [(String, String, String, Int, String)] = [
            ("GET", "/v2/nothing", "", 404, "no endpoint at /v2/nothing"),
            ("GET", "/", "", 404, "no endpoint at /"),
            ("GET", "/v1/deliveries/1/extra", "", 404, "no endpoint"),
            ("POST", "/v1/health", "", 405, "allowed: GET"),
            ("POST", "/v1/deliveries", "", 405, "allowed: GET, DELETE"),
            ("PUT", "/v1/deliveries/wait", "", 405, "allowed: GET"),
            ("DELETE", "/v1/deliveries/5", "", 405, "allowed: GET"),
            ("POST", "/v1/devices/aabb", "", 405, "allowed: GET, PUT, DELETE"),
            ("get", "/v1/health", "", 405, "method get not allowed"),
            ("GET", "/v1/health?verbose=1", "", 400, "unknown query parameter(s) 'verbose'"),
            ("GET", "/v1/deliveries?tokn=aa&foo=1", "", 400, "'tokn', 'foo'"),
            ("GET", "/v1/deliveries?status=abc", "", 400, "status must be an integer"),
            ("GET", "/v1/deliveries?status=1&status=2", "", 400, "'status' given more than once"),
            ("GET", "/v1/deliveries?limit=-1", "", 400, "limit must be at least 0"),
            ("GET", "/v1/deliveries?limit=x", "", 400, "limit must be an integer"),
            ("GET", "/v1/deliveries?environment=dev", "", 400, "environment must be sandbox or production"),
            ("GET", "/v1/deliveries?reason=Bad", "", 400, "reason must be an APNs reason"),
            ("GET", "/v1/deliveries?after=x", "", 400, "after must be a non-negative integer"),
            ("GET", "/v1/deliveries?count=2", "", 400, "unknown query parameter(s) 'count'"),
            ("GET", "/v1/deliveries/abc", "", 400, "seq must be a positive integer"),
            ("GET", "/v1/deliveries/5", "", 404, "no delivery with seq 5"),
            ("GET", "/v1/deliveries/wait?count=0", "", 400, "count must be at least 1"),
            ("GET", "/v1/deliveries/wait?timeoutMs=300001", "", 400, "timeoutMs must be between 0 and 300000"),
            ("GET", "/v1/deliveries/wait?timeoutMs=soon", "", 400, "timeoutMs must be an integer"),
            ("GET", "/v1/deliveries/wait?limit=1", "", 400, "'limit'"),
            ("GET", "/v1/devices/xyz1", "", 400, "token must be non-empty, even-length hexadecimal"),
            ("GET", "/v1/devices/abc", "", 400, "even-length"),
            ("GET", "/v1/devices/ccdd", "", 404, "no device with token ccdd"),
            ("DELETE", "/v1/devices/ccdd", "", 404, "no device with token ccdd"),
            ("PUT", "/v1/devices/ccdd", "{oops", 400, "body is not valid JSON"),
            (
                "PUT", "/v1/devices/ccdd", #"{"environment":"sandbox","unregisteredAt":01}"#, 400,
                "the body is not valid JSON: unregisteredAt (line 1, column 44): a number cannot have a leading zero; expected a JSON object like"
            ),
            ("PUT", "/v1/devices/ccdd", "", 400, "body is not valid JSON"),
            ("PUT", "/v1/devices/ccdd", "[1]", 400, "body must be a JSON object like"),
            ("PUT", "/v1/devices/ccdd", "[1]", 400, "expected an object, got an array"),
            (
                "PUT", "/v1/devices/ccdd", #"{"topic":"a"}"#, 400,
                #"environment: missing (required); expected "sandbox" or "production""#
            ),
            (
                "PUT", "/v1/devices/ccdd", #"{"environment":"dev"}"#, 400,
                #"environment: expected "sandbox" or "production", got "dev""#
            ),
            (
                "PUT", "/v1/devices/ccdd", #"{"environment":"sandbx"}"#, 400,
                #"environment: expected "sandbox" or "production", got "sandbx" (did you mean "sandbox"?)"#
            ),
            (
                "PUT", "/v1/devices/ccdd", #"{"environment":"sandbox","topci":"a"}"#, 400,
                #"topci: unknown key (did you mean "topic"?); valid keys here: token, topic, environment, unregisteredAt, expired"#
            ),
            ("PUT", "/v1/devices/ccdd", #"{"environment":"sandbox","environment":"production"}"#, 400, "duplicate key"),
            (
                "PUT", "/v1/devices/ccdd", #"{"environment":"sandbox","colour":1}"#, 400,
                "colour: unknown key; valid keys here: token, topic, environment, unregisteredAt, expired"
            ),
            (
                "PUT", "/v1/devices/ccdd", #"{"environment":"sandbox","topic":5}"#, 400,
                "topic: expected a non-empty string or null, got 5"
            ),
            (
                "PUT", "/v1/devices/ccdd", #"{"environment":"sandbox","expired":1}"#, 400,
                "expired: expected true or false, got 1"
            ),
            (
                "PUT", "/v1/devices/ccdd", #"{"environment":"sandbox","unregisteredAt":"yesterday"}"#, 400,
                "unregisteredAt: expected a non-negative integer (milliseconds since the epoch) or an ISO 8601 string"
            ),
            (
                "PUT", "/v1/devices/ccdd", #"{"environment":"sandbox","unregisteredAt":1.5}"#, 400,
                "unregisteredAt: expected a non-negative integer (milliseconds since the epoch) or an ISO 8601 string"
            ),
            (
                "PUT", "/v1/devices/ccdd", #"{"environment":"sandbox","unregisteredAt":true}"#, 400,
                "unregisteredAt: expected a non-negative integer (milliseconds since the epoch) or an ISO 8601 string"
            ),
            (
                "PUT", "/v1/devices/ccdd", #"{"environment":"sandbox","token":"eeff"}"#, 400,
                #"token: must equal the token in the path (ccdd), got "eeff""#
            ),
            ("PUT", "/v1/devices/ccd", #"{"environment":"sandbox"}"#, 400, "token must be"),
        ]
        for (method, target, body, status, text) in rows {
            let (got, json, _) = call(api, method, target, body: body)
            XCTAssertEqual(got, status, "\(method) \(target) \(body)")
            let message = json["error"] as? String ?? ""
            XCTAssertTrue(message.contains(text), "\(method) \(target): '\(message)' lacks '\(text)'")
        }
    }

    func testMethodNotAllowedSendsAllowHeader() {
        // PATCH is a method of the path since virtual devices (docs/device-model.md §7).
        let (status, _, response) = call(makeAPI(), "POST", "/v1/devices/aabb")
        XCTAssertEqual(status, 405)
        XCTAssertEqual(response.headers, [HeaderField(name: "allow", value: "GET, PUT, DELETE, PATCH")])
    }

    func testHealth() {
        let (status, json, _) = call(makeAPI(), "GET", "/v1/health")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["status"] as? String, "ok")
        XCTAssertEqual(json["version"] as? String, "0.1.0-test")
        XCTAssertEqual(json["uptimeMs"] as? Int, 1234)
        XCTAssertEqual(json["connectionsOpen"] as? Int, 2)
        XCTAssertEqual(json["workers"] as? Int, 3)
        XCTAssertEqual(json["openFileLimit"] as? Int, 1024)
        XCTAssertEqual(json["openFiles"] as? Int, 17)
        let listeners = json["listeners"] as? [[String: Any]]
        XCTAssertEqual(listeners?.first?["address"] as? String, "127.0.0.1:2197")
        XCTAssertEqual(listeners?.first?["environment"] as? String, "sandbox")
    }

    func testTrailingSlashAndPercentEncodingAreAccepted() {
        let api = makeAPI()
        XCTAssertEqual(call(api, "GET", "/v1/health/").0, 200)
        XCTAssertEqual(call(api, "GET", "/v1/devices/%61abb").0, 200)
        api.store.append(F.record(topic: "com.a b"))
        let (_, json, _) = call(api, "GET", "/v1/deliveries?topic=com.a+b")
        XCTAssertEqual((json["deliveries"] as? [Any])?.count, 1)
    }

    func testListDeliveriesWithFiltersLimitAndAfter() {
        let api = makeAPI()
        api.store.append(F.record())
        api.store.append(F.record(status: 400, reason: .badTopic))
        api.store.append(F.record(status: 400, reason: .badTopic))
        api.store.append(F.record(token: "ccdd"))
        var (status, json, _) = call(api, "GET", "/v1/deliveries?status=400&reason=BadTopic")
        XCTAssertEqual(status, 200)
        let seqs = { (json: [String: Any]) in
            (json["deliveries"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? Int }
        }
        XCTAssertEqual(seqs(json), [2, 3])
        XCTAssertEqual(json["lastSeq"] as? Int, 4)
        XCTAssertEqual(json["evicted"] as? Int, 0)
        XCTAssertEqual(json["more"] as? Bool, false)
        (_, json, _) = call(api, "GET", "/v1/deliveries?limit=1&after=1")
        XCTAssertEqual(seqs(json), [2])
        XCTAssertEqual(json["more"] as? Bool, true)
        (_, json, _) = call(api, "GET", "/v1/deliveries?token=CCDD")
        XCTAssertEqual(seqs(json), [4])
    }

    func testGetDeliveryBySeqAndEvicted() {
        let api = makeAPI(capacity: 1)
        api.store.append(F.record(topic: "first"))
        var (status, json, _) = call(api, "GET", "/v1/deliveries/1")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["topic"] as? String, "first")
        api.store.append(F.record())
        (status, json, _) = call(api, "GET", "/v1/deliveries/1")
        XCTAssertEqual(status, 404)
        XCTAssertEqual(json["error"] as? String, "no delivery with seq 1")
        (_, json, _) = call(api, "GET", "/v1/deliveries")
        XCTAssertEqual(json["evicted"] as? Int, 1)
    }

    func testDeleteDeliveriesClearsButKeepsSeqAndStats() {
        let api = makeAPI()
        api.store.append(F.record())
        api.store.append(F.record(status: 400, reason: .badTopic))
        var (status, json, _) = call(api, "DELETE", "/v1/deliveries")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["cleared"] as? Int, 2)
        XCTAssertEqual(json["lastSeq"] as? Int, 2)
        (_, json, _) = call(api, "GET", "/v1/deliveries")
        XCTAssertEqual((json["deliveries"] as? [Any])?.count, 0)
        XCTAssertEqual(api.store.append(F.record()), 3)
        (status, json, _) = call(api, "GET", "/v1/stats")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["requests"] as? Int, 3)
        XCTAssertEqual(json["records"] as? Int, 1)
        XCTAssertEqual(json["byStatus"] as? [String: Int], ["200": 2, "400": 1])
        XCTAssertEqual(json["byReason"] as? [String: Int], ["BadTopic": 1])
        XCTAssertEqual(json["connectionsOpen"] as? Int, 2)
        XCTAssertEqual(json["evicted"] as? Int, 0)
        // Since start: the 2 cleared, none evicted, so cleared + records + evictedTotal == requests.
        XCTAssertEqual(json["cleared"] as? Int, 2)
        XCTAssertEqual(json["evictedTotal"] as? Int, 0)
    }

    func testDeviceLifecycle() {
        let api = makeAPI(now: 1_700_000_000.25)
        var (status, json, _) = call(
            api, "PUT", "/v1/devices/CCDD",
            body: #"{"topic":"com.x","environment":"production","unregisteredAt":"2026-11-30T08:49:03.123Z"}"#)
        XCTAssertEqual(status, 201)
        XCTAssertEqual(json["token"] as? String, "ccdd")
        XCTAssertEqual(json["unregisteredAt"] as? Int, 1_796_028_543_123)
        XCTAssertEqual(api.registry.lookup("ccdd")?.environment, .production)
        (status, json, _) = call(api, "PUT", "/v1/devices/ccdd", body: #"{"environment":"sandbox","expired":true}"#)
        XCTAssertEqual(status, 200, "replacing answers 200")
        XCTAssertEqual(json["expired"] as? Bool, true)
        XCTAssertEqual(json["unregisteredAt"] as? Int, 1_700_000_000_250, "expired without a time is stamped now")
        XCTAssertTrue(json["topic"] is NSNull)
        (status, json, _) = call(
            api, "PUT", "/v1/devices/eeff",
            body: #"{"environment":"sandbox","unregisteredAt":1700000000000,"token":"EEFF","topic":null}"#)
        XCTAssertEqual(status, 201)
        XCTAssertEqual(api.registry.lookup("eeff")?.unregisteredAt, 1_700_000_000_000)
        (status, _, _) = call(
            api, "PUT", "/v1/devices/eeff", body: #"{"environment":"sandbox","unregisteredAt":1.7e12}"#)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(api.registry.lookup("eeff")?.unregisteredAt, 1_700_000_000_000, "an integral exponent form")
        (status, json, _) = call(api, "GET", "/v1/devices/CCDD")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["environment"] as? String, "sandbox")
        (status, json, _) = call(api, "GET", "/v1/devices")
        XCTAssertEqual(
            ((json["devices"] as? [[String: Any]]) ?? []).compactMap { $0["token"] as? String },
            ["aabb", "ccdd", "eeff"])
        XCTAssertEqual(json["count"] as? Int, 3)
        (status, json, _) = call(api, "DELETE", "/v1/devices/ccdd")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["deleted"] as? String, "ccdd")
        XCTAssertNil(api.registry.lookup("ccdd"))
        (status, json, _) = call(api, "DELETE", "/v1/devices")
        XCTAssertEqual(json["removed"] as? Int, 2)
        XCTAssertEqual(api.registry.count, 0)
    }

    func testWaitAnswersAtOnceWhenAlreadyComplete() {
        let api = makeAPI()
        api.store.append(F.record(status: 400, reason: .badTopic))
        let (status, json, _) = call(api, "GET", "/v1/deliveries/wait?status=400")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["complete"] as? Bool, true)
        XCTAssertEqual(json["matched"] as? Int, 1)
        XCTAssertEqual(json["count"] as? Int, 1)
    }

    func testWaitCompletesWhenEnoughRecordsArrive() throws {
        let api = makeAPI()
        api.store.append(F.record())
        guard
            case .wait(.deliveries(var wait)) = api.handle(
                ControlRequest(method: "GET", target: "/v1/deliveries/wait?count=2&timeoutMs=1000&after=1"))
        else {
            return XCTFail("expected a wait")
        }
        XCTAssertEqual(wait.count, 2)
        XCTAssertEqual(wait.timeoutMilliseconds, 1000)
        XCTAssertNil(api.waitResult(&wait, timedOut: false), "nothing changed")
        api.store.append(F.record())
        XCTAssertNil(api.waitResult(&wait, timedOut: false), "one of two")
        api.store.append(F.record())
        let response = try XCTUnwrap(api.waitResult(&wait, timedOut: false))
        let json = F.object(response.body)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(json["complete"] as? Bool, true)
        XCTAssertEqual((json["deliveries"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int }, [2, 3])
    }

    func testWaitTimesOutIncompleteWithWhatMatched() throws {
        let api = makeAPI()
        guard
            case .wait(var wait) = api.handle(
                ControlRequest(method: "GET", target: "/v1/deliveries/wait?count=3&topic=com.example.app"))
        else {
            return XCTFail("expected a wait")
        }
        XCTAssertEqual(wait.timeoutMilliseconds, ControlAPI.defaultWaitMilliseconds)
        api.store.append(F.record())
        api.store.append(F.record(topic: "other"))
        XCTAssertNil(api.waitResult(&wait, timedOut: false))
        let response = try XCTUnwrap(api.waitResult(&wait, timedOut: true))
        let json = F.object(response.body)
        XCTAssertEqual(json["complete"] as? Bool, false)
        XCTAssertEqual(json["matched"] as? Int, 1)
        XCTAssertEqual((json["deliveries"] as? [Any])?.count, 1)
    }

    func testWaitWithZeroTimeoutAnswersAtOnce() {
        let (status, json, _) = call(makeAPI(), "GET", "/v1/deliveries/wait?timeoutMs=0")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["complete"] as? Bool, false)
    }

    func testWaitRecountsAfterClear() throws {
        let api = makeAPI()
        guard case .wait(var wait) = api.handle(ControlRequest(method: "GET", target: "/v1/deliveries/wait?count=2"))
        else {
            return XCTFail("expected a wait")
        }
        api.store.append(F.record())
        XCTAssertNil(api.waitResult(&wait, timedOut: false))
        api.store.clear()
        api.store.append(F.record())
        XCTAssertNil(api.waitResult(&wait, timedOut: false), "the cleared record no longer counts")
        api.store.append(F.record())
        XCTAssertNotNil(api.waitResult(&wait, timedOut: false))
    }

    func testWaitDoesNotCompleteOnEvictedRecords() {
        let api = makeAPI(capacity: 2)
        guard
            case .wait(var wait) = api.handle(
                ControlRequest(method: "GET", target: "/v1/deliveries/wait?count=2&status=400"))
        else {
            return XCTFail("expected a wait")
        }
        api.store.append(F.record(status: 400, reason: .badTopic))
        XCTAssertNil(api.waitResult(&wait, timedOut: false))
        api.store.append(F.record(status: 400, reason: .badTopic))
        api.store.append(F.record())
        api.store.append(F.record())  // both 400s evicted before the next poll
        XCTAssertNil(api.waitResult(&wait, timedOut: false))
    }

    func testGarbageNeverCrashes() {
        let api = makeAPI()
        api.store.append(F.record(payload: [0xFF, 0x00, 0x7B]))
        let targets = [
            "", "?", "??", "/v1/deliveries?%zz=1", "/v1/deliveries?=", "/v1/deliveries/99999999999999999999999",
            "/v1/deliveries/-1", "/v1/devices/%", "//v1//health", "/v1/deliveries?after=18446744073709551615",
            "/v1/deliveries?limit=99999999999999999999", "/v1/deliveries/wait?count=9223372036854775807&timeoutMs=0",
        ]
        for target in targets {
            for method in ["GET", "PUT", "DELETE", "", "\u{0}"] {
                let (status, json, _) = call(api, method, target, body: "\u{FFFF}{")
                XCTAssertTrue((200..<500).contains(status), "\(method) \(target) gave \(status)")
                if status >= 400 { XCTAssertNotNil(json["error"] as? String, "\(method) \(target)") }
            }
        }
    }
}

final class ControlAPIClockTests: XCTestCase {
    func testClockOffsetIsReadAndSet() throws {
        let clock = ServerClock()
        let api = ControlAPI(
            store: DeliveryStore(capacity: 4), registry: DeviceRegistry(), credentialClock: clock,
            status: {
                ControlStatus(version: "t", uptimeMilliseconds: 0, connectionsOpen: 0, listeners: [], workers: 1)
            })
        guard
            case .response(let put) = api.handle(
                ControlRequest(
                    method: "PUT", path: "/v1/clock",
                    body: Array(#"{"offsetSeconds": 4000}"#.utf8)))
        else {
            return XCTFail("PUT /v1/clock must answer at once")
        }
        XCTAssertEqual(put.status, 200)
        XCTAssertEqual(clock.offsetSeconds, 4000)
        XCTAssertGreaterThan(clock.now() - Date().timeIntervalSince1970, 3999)
        guard case .response(let get) = api.handle(ControlRequest(method: "GET", path: "/v1/clock")),
            let object = try JSONSerialization.jsonObject(with: Data(get.body)) as? [String: Any]
        else {
            return XCTFail("GET /v1/clock must answer a JSON object")
        }
        XCTAssertEqual(object["offsetSeconds"] as? Double, 4000)
        XCTAssertNotNil(object["now"] as? String)
        for bad in [#"{"offsetSeconds": "x"}"#, "{}", "nope", #"{"offsetSeconds": 1e300}"#] {
            guard
                case .response(let rejected) = api.handle(
                    ControlRequest(method: "PUT", path: "/v1/clock", body: Array(bad.utf8)))
            else {
                return XCTFail("PUT must answer at once")
            }
            XCTAssertEqual(rejected.status, 400, bad)
            XCTAssertTrue(String(decoding: rejected.body, as: UTF8.self).contains("offsetSeconds"), bad)
        }
        XCTAssertEqual(clock.offsetSeconds, 4000, "a rejected PUT leaves the offset alone")
    }

    /// `/v1/clock` refuses unknown keys like every other body, with the field and a "did you mean".
    func testClockBodyNamesTheField() {
        let clock = ServerClock()
        let api = ControlAPI(
            store: DeliveryStore(capacity: 4), registry: DeviceRegistry(), credentialClock: clock,
            status: {
                ControlStatus(version: "t", uptimeMilliseconds: 0, connectionsOpen: 0, listeners: [], workers: 1)
            })
        let rows: [(String, String)] = [
            (
                #"{"offsetSeconds": 5, "offsetSecond": 6}"#,
                #"offsetSecond: unknown key (did you mean "offsetSeconds"?); valid keys here: offsetSeconds"#
            ),
            (
                #"{"offsetSecond": 6}"#,
                #"offsetSecond: unknown key (did you mean "offsetSeconds"?); valid keys here: offsetSeconds"#
            ),
            (
                #"{"offsetSeconds": 1e300}"#,
                "offsetSeconds: expected a number from -10000000000 to 10000000000, got 1e+300"
            ),
            (
                #"{"offsetSeconds": "x"}"#,
                #"offsetSeconds: expected a number from -10000000000 to 10000000000, got "x""#
            ),
            ("{}", "offsetSeconds: missing; expected a number from -10000000000 to 10000000000"),
            ("[]", "body must be \(ClockBody.form): expected an object, got an array"),
        ]
        for (body, message) in rows {
            guard
                case .response(let rejected) = api.handle(
                    ControlRequest(method: "PUT", path: "/v1/clock", body: Array(body.utf8)))
            else {
                return XCTFail("PUT must answer at once")
            }
            XCTAssertEqual(rejected.status, 400, body)
            let json = try? JSONDecoder().decode([String: String].self, from: Data(rejected.body))
            XCTAssertEqual(json?["error"], message, body)
        }
        XCTAssertEqual(clock.offsetSeconds, 0, "a rejected PUT leaves the offset alone")
    }
}
