import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import Faults
@testable import JSONSupport

/// The bodies of the control API, read by `StrictJSONDecoder` (`ControlBody`).
final class ControlBodyTests: XCTestCase {
    private func refusal<T: Decodable>(_ type: T.Type, _ body: String, form: String = "FORM") -> String? {
        do {
            _ = try ControlBody.decode(type, from: Array(body.utf8), form: form)
            XCTFail("accepted \(body)")
            return nil
        } catch {
            return error.status == 400 ? error.message : "status \(error.status)"
        }
    }

    func testMessagesNameTheFieldTheSyntaxOrTheForm() {
        XCTAssertEqual(
            refusal(ClockBody.self, "{\n  \"offsetSeconds\": 1,\n}"),
            "the body is not valid JSON: line 2, column 21: trailing comma before '}'; expected FORM")
        XCTAssertEqual(
            refusal(ClockBody.self, ""),
            "the body is not valid JSON (it is empty); expected FORM")
        XCTAssertEqual(refusal(ClockBody.self, "7"), "body must be FORM: expected an object, got 7")
        XCTAssertEqual(
            refusal(ClockBody.self, #"{"offsetSeconds": 1, "offsetSeconds": 2}"#),
            #"the body is not valid JSON: line 1, column 22: duplicate key "offsetSeconds"; expected FORM"#
        )
        XCTAssertEqual(
            refusal(ClockBody.self, #"{"offsetSeconds": true}"#),
            "offsetSeconds: expected a number from -10000000000 to 10000000000, got true")
    }

    func testGoawayBodyDefaultsAndNulls() throws {
        XCTAssertEqual(
            try GoawayBody.read(Array(" \n".utf8)).command,
            .goaway(errorCode: 0, reason: "Shutdown", closeAfterMilliseconds: 0))
        XCTAssertEqual(
            try GoawayBody.read(Array(#"{"errorCode": null, "reason": null, "closeAfterMs": null}"#.utf8)).command,
            .goaway(errorCode: 0, reason: nil, closeAfterMilliseconds: nil))
        XCTAssertEqual(
            try GoawayBody.read(Array(#"{"errorCode": "enhance_your_calm", "closeAfterMs": 2.5e2}"#.utf8)).command,
            .goaway(errorCode: 11, reason: "Shutdown", closeAfterMilliseconds: 250))
    }

    func testGoawayBodyRefusesDebugDataLongerThanOneFrame() throws {
        let fits = String(repeating: "z", count: 16_363)
        XCTAssertEqual(
            try GoawayBody.read(Array((#"{"reason": ""# + fits + #""}"#).utf8)).command,
            .goaway(errorCode: 0, reason: fits, closeAfterMilliseconds: 0))
        XCTAssertEqual(
            refusal(GoawayBody.self, #"{"reason": ""# + fits + #"z"}"#),
            "reason: the GOAWAY debug data would be 16377 bytes; one frame carries at most 16376")
    }

    func testDrainBodyRefusesDebugDataLongerThanOneFrame() throws {
        let fits = String(repeating: "z", count: 16_363)
        XCTAssertEqual(
            try DrainBody.read(Array((#"{"reason": ""# + fits + #""}"#).utf8)).command,
            .drain(reason: fits, maxMilliseconds: DrainBody.defaultMaxMilliseconds))
        XCTAssertEqual(
            refusal(DrainBody.self, #"{"reason": ""# + fits + #"z"}"#),
            "reason: the GOAWAY debug data would be 16377 bytes; one frame carries at most 16376")
    }

    func testDeviceBodyReadsEveryField() throws {
        let body = try ControlBody.decode(
            DeviceBody.self,
            from: Array(
                #"{"token": "CCDD", "topic": "com.a", "environment": "Production", "unregisteredAt": "2024-05-01T12:00:00Z", "expired": true}"#
                    .utf8),
            form: DeviceBody.form)
        XCTAssertEqual(
            try body.registration(token: "ccdd", nowMilliseconds: 5),
            DeviceRegistration(
                token: "ccdd", topic: "com.a", environment: .production, unregisteredAt: 1_714_564_800_000,
                expired: true))
        let marked = try ControlBody.decode(
            DeviceBody.self, from: Array(#"{"environment": "sandbox", "expired": true, "topic": null}"#.utf8),
            form: DeviceBody.form)
        XCTAssertEqual(
            try marked.registration(token: "ccdd", nowMilliseconds: 5),
            DeviceRegistration(token: "ccdd", environment: .sandbox, unregisteredAt: 5, expired: true),
            "expired without unregisteredAt records the moment of marking")
        XCTAssertEqual(
            refusal(DeviceBody.self, #"{"environment": "sandbox", "unregisteredAt": 253402300800000}"#)?.hasPrefix(
                "unregisteredAt: expected a non-negative integer"), true, "after the year 9999")
    }
}
