import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import Faults
@testable import JSONSupport
@testable import Recording
@testable import TestFixtures

final class ControlAPIListenersTests: XCTestCase {
    func makeAPI() -> (ControlAPI, ListenerConditionsInForce) {
        let board = ListenerConditionsInForce(listeners: [("sandbox", .sandbox), ("production", .production)])
        let api = ControlAPI(
            store: DeliveryStore(), registry: DeviceRegistry(), clock: { 1_000 },
            listenerConditions: board, status: { StoreFixtures.status() })
        return (api, board)
    }

    func put(_ api: ControlAPI, _ name: String, _ body: String) -> ControlResponse {
        guard
            case .response(let response) = api.handle(
                ControlRequest(
                    method: "PUT", path: "/v1/listeners/\(name)/conditions",
                    body: Array(body.utf8)))
        else {
            XCTFail("PUT must answer at once")
            return ControlResponse(status: 0, body: [])
        }
        return response
    }

    func testConditionsAreSetAndListed() {
        let (api, board) = makeAPI()
        XCTAssertEqual(put(api, "production", #"{"handshakeDelayMs": 9000, "refuseMs": 500}"#).status, 200)
        XCTAssertEqual(
            board.conditions(of: "production"),
            ListenerConditions(handshakeDelayMs: 9000, silent: false, refuseUntil: 1_000_500))
        XCTAssertEqual(board.conditions(of: "sandbox"), ListenerConditions())
        guard case .response(let list) = api.handle(ControlRequest(method: "GET", path: "/v1/listeners")) else {
            return XCTFail("GET must answer at once")
        }
        let text = String(decoding: list.body, as: UTF8.self)
        XCTAssertTrue(text.contains(#""handshakeDelayMs":9000"#) && text.contains(#""name":"production""#), text)
        XCTAssertEqual(put(api, "production", #"{"refuseMs": 0, "silent": true}"#).status, 200)
        XCTAssertEqual(board.conditions(of: "production")?.refuseUntil, nil)
        XCTAssertEqual(board.conditions(of: "production")?.silent, true)
    }

    func testBadInputIsNamed() {
        let (api, _) = makeAPI()
        let rows: [(String, String, Int, String)] = [
            ("nope", "{}", 404, "no listener named 'nope'"),
            ("sandbox", #"{"handshakeDelayMs": -1}"#, 400, "handshakeDelayMs"),
            ("sandbox", #"{"handshakeDelayMs": 600001}"#, 400, "handshakeDelayMs"),
            ("sandbox", #"{"refuseMs": "soon"}"#, 400, "refuseMs"),
            (
                "sandbox", #"{"slow": true}"#, 400,
                "slow: unknown key; valid keys here: handshakeDelayMs, silent, refuseMs"
            ),
            ("sandbox", #"{"silnet": true}"#, 400, #"silnet: unknown key (did you mean \"silent\"?)"#),
            (
                "sandbox", #"{"handshakeDelayMs": -1}"#, 400,
                "handshakeDelayMs: expected an integer from 0 to 600000, got -1"
            ),
            ("sandbox", #"{"silent": 1}"#, 400, "silent: expected true or false, got 1"),
            ("sandbox", "{", 400, "the body is not valid JSON: line 1, column 2"),
            ("sandbox", "[]", 400, "JSON object"),
        ]
        for (name, body, status, message) in rows {
            let response = put(api, name, body)
            XCTAssertEqual(response.status, status, body)
            XCTAssertTrue(
                String(decoding: response.body, as: UTF8.self).contains(message),
                "\(body): \(String(decoding: response.body, as: UTF8.self))")
        }
    }

    func testAdmissionFollowsTheConditions() {
        XCTAssertEqual(ListenerConditions().admission(nowMilliseconds: 5), .proceed(delayMilliseconds: 0))
        XCTAssertEqual(
            ListenerConditions(handshakeDelayMs: 9000).admission(nowMilliseconds: 5), .proceed(delayMilliseconds: 9000))
        XCTAssertEqual(ListenerConditions(silent: true).admission(nowMilliseconds: 5), .silent)
        XCTAssertEqual(ListenerConditions(silent: true, refuseUntil: 10).admission(nowMilliseconds: 5), .refuse)
        XCTAssertEqual(
            ListenerConditions(refuseUntil: 10).admission(nowMilliseconds: 10), .proceed(delayMilliseconds: 0))
    }
}

final class ControlAPIDeviceBoundsTests: XCTestCase {
    func testTokensLongerThanTheAPNsPortTakesAndNegativeTimesAreRefused() {
        let api = ControlAPI(store: DeliveryStore(), registry: DeviceRegistry(), status: { StoreFixtures.status() })
        let rows: [(String, String, String)] = [
            (String(repeating: "ab", count: 101), #"{"environment":"sandbox"}"#, "at most 200 hex characters"),
            ("abcd", #"{"environment":"sandbox","unregisteredAt":-1}"#, "non-negative"),
        ]
        for (token, body, message) in rows {
            guard
                case .response(let response) = api.handle(
                    ControlRequest(
                        method: "PUT", path: "/v1/devices/\(token)",
                        body: Array(body.utf8)))
            else {
                return XCTFail("PUT must answer at once")
            }
            XCTAssertEqual(response.status, 400, body)
            XCTAssertTrue(
                String(decoding: response.body, as: UTF8.self).contains(message),
                String(decoding: response.body, as: UTF8.self))
        }
        XCTAssertEqual(api.registry.count, 0)
    }
}
