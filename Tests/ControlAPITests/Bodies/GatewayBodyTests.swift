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
            (#"{"name": "g2"}"#, "name: \"g2\" is reserved"),
            (#"{"name": "g10"}"#, "name: \"g10\" is reserved"),
            (#"{"name": "."}"#, "name: \".\" is reserved"),
            (#"{"name": ".."}"#, "name: \"..\" is reserved"),
            (#"{"name": "a/b"}"#, "name:"),
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

    /// A device's refusal names its exact field under `devices[N]` (it was `devices.0`, and a
    /// bad token was named by the PUT route it became, or not at all).
    func testDeviceRefusalsNameTheExactField() {
        let good = #"{"token":"aa","environment":"sandbox"}"#
        let hex = "expected non-empty, even-length hexadecimal of at most 200 characters, got "
        let rows: [(String, String)] = [
            (#"{"devices": [{"environment":"sandbox"}]}"#, "devices[0]: expected a device object"),
            (#"{"devices": [\#(good), "aa"]}"#, "devices[1]: expected a device object"),
            (
                #"{"devices": [\#(good), {"token":"xyz","environment":"sandbox"}]}"#,
                "devices[1].token: " + hex + #""xyz""#
            ),
            (#"{"devices": [{"token":"abc","environment":"sandbox"}]}"#, "devices[0].token: " + hex + #""abc""#),
            (#"{"devices": [{"token":"ab/cd","environment":"sandbox"}]}"#, "devices[0].token: " + hex + #""ab/cd""#),
            (#"{"devices": [{"token":"","environment":"sandbox"}]}"#, "devices[0].token: " + hex + #""""#),
            (#"{"devices": [{"token":12,"environment":"sandbox"}]}"#, "devices[0].token: " + hex + "12"),
            (
                #"{"devices": [{"token":"\#(String(repeating: "a", count: 202))","environment":"sandbox"}]}"#,
                "devices[0].token: "
            ),
            (
                #"{"devices": [{"token":"aa","environment":"moon"}]}"#,
                #"devices[0].environment: expected "sandbox" or "production""#
            ),
            (#"{"devices": [{"token":"aa"}]}"#, "devices[0].environment: missing (required)"),
            (#"{"devices": [{"token":"aa","environment":"sandbox","colour":1}]}"#, "devices[0].colour: unknown key"),
        ]
        for (text, expected) in rows {
            XCTAssertThrowsError(try read(text), text) { error in
                let error = error as? ControlError
                XCTAssertEqual(error?.status, 400, text)
                XCTAssertTrue(error?.message.hasPrefix(expected) ?? false, "\(text): \(error?.message ?? "")")
            }
        }
        XCTAssertEqual(try read(#"{"devices": [{"token":"AAbb","environment":"sandbox"}]}"#).devices.count, 1)
    }

    /// `maxRecords` out of the server's range is refused stating that range (the body said 1 to
    /// 2147483647 whatever the server's bound).
    func testMaxRecordsIsCheckedAgainstTheServersRangeWhichTheRefusalStates() throws {
        for value in ["0", "-1", "501", "1099511627776"] {
            XCTAssertThrowsError(
                try GatewayBody.read(Array(#"{"maxRecords": \#(value)}"#.utf8), maxRecordsRange: 1...500)
            ) {
                XCTAssertEqual(
                    ($0 as? ControlError)?.message,
                    "maxRecords: expected an integer from 1 to 500 (the server's maxRecords), got \(value)")
            }
        }
        XCTAssertEqual(
            try GatewayBody.read(Array(#"{"maxRecords": 500}"#.utf8), maxRecordsRange: 1...500).maxRecords, 500)
        XCTAssertThrowsError(try read(#"{"maxRecords": 2147483648}"#)) {
            XCTAssertTrue(($0 as? ControlError)?.message.contains("from 1 to 2147483647") ?? false)
        }
    }
}
