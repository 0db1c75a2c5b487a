import Synchronization
import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import JSONSupport
@testable import Recording
@testable import TestFixtures

/// The `/v1/gateways` endpoints over a fake directory, and the prefix split the HTTP adapter uses.
final class ControlAPIGatewaysTests: XCTestCase {
    private func api(_ gateways: (any GatewayDirectory)?) -> ControlAPI {
        ControlAPI(store: DeliveryStore(), registry: DeviceRegistry(devices: []), gateways: gateways) {
            StoreFixtures.status()
        }
    }

    private func answer(_ api: ControlAPI, _ method: String, _ path: String, _ body: String = "") -> ControlResponse {
        guard
            case .response(let response) = api.handle(
                ControlRequest(method: method, path: path, body: Array(body.utf8)))
        else {
            XCTFail("waited")
            return ControlResponse(status: 0, body: [])
        }
        return response
    }

    func testCreateListGetDelete() {
        let directory = FakeGatewayDirectory(count: 0)
        let api = api(directory)
        let created = answer(api, "POST", "/v1/gateways", #"{"name":"suite-a"}"#)
        XCTAssertEqual(created.status, 201)
        let object = StoreFixtures.object(created.body)
        XCTAssertEqual(object["id"] as? String, "g1")
        XCTAssertEqual(object["name"] as? String, "suite-a")
        XCTAssertEqual(object["controlBase"] as? String, "/v1/gateways/g1")
        XCTAssertEqual(answer(api, "POST", "/v1/gateways").status, 201, "no body: every default")
        let list = StoreFixtures.object(answer(api, "GET", "/v1/gateways").body)
        XCTAssertEqual(list["count"] as? Int, 2)
        XCTAssertEqual(list["max"] as? Int, 3)
        XCTAssertEqual(answer(api, "GET", "/v1/gateways/g2").status, 200)
        XCTAssertEqual(answer(api, "DELETE", "/v1/gateways/g2").status, 200)
        XCTAssertEqual(answer(api, "GET", "/v1/gateways/g2").status, 404)
        XCTAssertEqual(answer(api, "DELETE", "/v1/gateways/g2").status, 404)
        XCTAssertEqual(answer(api, "POST", "/v1/gateways", #"{"nmae":"x"}"#).status, 400)
        XCTAssertEqual(answer(api, "PUT", "/v1/gateways").status, 405)
        _ = answer(api, "POST", "/v1/gateways")
        _ = answer(api, "POST", "/v1/gateways")
        XCTAssertEqual(answer(api, "POST", "/v1/gateways").status, 429, "the directory's cap")
    }

    func testAnAnswerGivenBecauseTheGatewayWentIsMarked() {
        let marked = ControlAPI.gatewayDeletedAnswer(
            ControlResponse(status: 200, body: Array(#"{"complete":false}"#.utf8)))
        XCTAssertEqual(String(decoding: marked.body, as: UTF8.self), #"{"gatewayDeleted":true,"complete":false}"#)
        XCTAssertEqual(marked.status, 200)
        let empty = ControlAPI.gatewayDeletedAnswer(ControlResponse(status: 200, body: Array("{}".utf8)))
        XCTAssertEqual(String(decoding: empty.body, as: UTF8.self), #"{"gatewayDeleted":true}"#)
        let other = ControlResponse(status: 200, body: Array("[1]".utf8))
        XCTAssertEqual(ControlAPI.gatewayDeletedAnswer(other), other, "not an object: as it was")
    }

    func testAnAPIWithoutGatewaysAnswers404() {
        let api = api(nil)
        XCTAssertEqual(answer(api, "POST", "/v1/gateways").status, 404)
        XCTAssertEqual(answer(api, "GET", "/v1/gateways").status, 404)
        XCTAssertEqual(answer(api, "GET", "/v1/gateways/g1").status, 404)
    }

    func testThePrefixSplitsOnlyPathsUnderAGateway() {
        let rows: [(String, String?, String?)] = [
            ("/v1/gateways/g1/v1/deliveries", "g1", "/v1/deliveries"),
            ("/v1/gateways/g12/v1/deliveries/wait", "g12", "/v1/deliveries/wait"),
            ("/v1/gateways/g1/metrics", "g1", "/metrics"),
            ("/v1/gateways/g1/v1/gateways", "g1", "/v1/gateways"),
            ("/v1/gateways/g1", nil, nil),
            ("/v1/gateways/g1/", nil, nil),
            ("/v1/gateways", nil, nil),
            ("/v1/gateways/", nil, nil),
            ("/v1/gateways//v1/health", nil, nil),
            ("/v1/deliveries", nil, nil),
        ]
        for (path, id, rest) in rows {
            let split = ControlAPI.gatewayPrefix(of: path)
            XCTAssertEqual(split?.id, id, path)
            XCTAssertEqual(split?.rest, rest, path)
        }
    }
}
