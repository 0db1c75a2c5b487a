import APNsCore
import ControlAPI
import JSONInput
import JSONSupport
import XCTest

/// `GatewayBody`: the body of `POST /v1/gateways`, every key optional, unknown keys refused.
final class GatewayBodyTests: XCTestCase {
    private func read(_ text: String) throws -> GatewayBody { try GatewayBody.read(Array(text.utf8)) }

    func testNoBodyOrAnEmptyObjectTakesEveryDefault() throws {
        XCTAssertEqual(try read(""), GatewayBody())
        XCTAssertEqual(try read("  \n"), GatewayBody())
        XCTAssertEqual(try read("{}"), GatewayBody())
        XCTAssertEqual(GatewayBody().port, 0)
        XCTAssertNil(GatewayBody().ttlSeconds)
    }

    func testEveryKeyIsRead() throws {
        let body = try read(
            #"{"name":"suite-a.1","port":4321,"environment":"Production","auth":"strict","ttlSeconds":0,"#
                + #""maxRecords":50,"devices":[{"token":"aa","environment":"sandbox"}],"faults":{"action":{"status":500}}}"#
        )
        XCTAssertEqual(body.name, "suite-a.1")
        XCTAssertEqual(body.port, 4321)
        XCTAssertEqual(body.environment, .production)
        XCTAssertEqual(body.auth, "strict")
        XCTAssertEqual(body.ttlSeconds, 0)
        XCTAssertEqual(body.maxRecords, 50)
        XCTAssertEqual(body.devices.count, 1)
        XCTAssertNotNil(body.faults)
    }

    func testRefusalsNameTheKey() {
        let rows: [(String, String)] = [
            (#"{"ttl": 5}"#, "ttl: unknown key"),
            (#"{"port": 70000}"#, "port:"),
            (#"{"ttlSeconds": -1}"#, "ttlSeconds:"),
            (#"{"ttlSeconds": 86401}"#, "ttlSeconds:"),
            (#"{"maxRecords": 0}"#, "maxRecords:"),
            (#"{"environment": "sandbx"}"#, "environment:"),
            (#"{"auth": "open"}"#, "auth:"),
            (#"{"name": ""}"#, "name:"),
            (#"{"name": "a b"}"#, "name:"),
            (#"{"devices": [{"environment":"sandbox"}]}"#, "devices"),
            (#"{"devices": {}}"#, "devices"),
            ("[]", "body must be"),
            ("{", "not valid JSON"),
        ]
        for (text, expected) in rows {
            XCTAssertThrowsError(try read(text), text) { error in
                let error = error as? ControlError
                XCTAssertEqual(error?.status, 400, text)
                XCTAssertTrue(error?.message.contains(expected) ?? false, "\(text): \(error?.message ?? "")")
            }
        }
    }
}
