import APNsCore
import XCTest

@testable import TestFixtures

/// `:method` and `:path` (docs/apns-behaviour.md §1.1, §3).
final class RequestPathRuleTests: XCTestCase {
    typealias F = ValidationFixture

    func testMethodAndPathTable() {
        check([
            ValidationRow("POST to /3/device/<token>", F.request(), nil),
            ValidationRow("GET", F.request(method: "GET"), .methodNotAllowed),
            ValidationRow("PUT", F.request(method: "PUT"), .methodNotAllowed),
            ValidationRow("lowercase post", F.request(method: "post"), .methodNotAllowed),
            ValidationRow("/3/device/ with no token", F.request(path: "/3/device/"), .missingDeviceToken),
            ValidationRow("/3/device with no slash", F.request(path: "/3/device"), .missingDeviceToken),
            ValidationRow("/3/devices/<token>", F.request(path: "/3/devices/\(F.token)"), .badPath),
            ValidationRow("/2/device/<token>", F.request(path: "/2/device/\(F.token)"), .badPath),
            ValidationRow("/3/device prefix cut short", F.request(path: "/3/devic"), .badPath),
            ValidationRow("root", F.request(path: "/"), .badPath),
            ValidationRow("empty path", F.request(path: ""), .badPath),
            ValidationRow("uppercase DEVICE", F.request(path: "/3/DEVICE/\(F.token)"), .badPath),
            ValidationRow(
                "extra segment is part of the token", F.request(path: "/3/device/\(F.token)/x"),
                .badDeviceToken),
            ValidationRow(
                "query string is part of the token", F.request(path: "/3/device/\(F.token)?a=1"),
                .badDeviceToken),
        ])
    }

    func testStatusCodes() {
        let verdicts = check([
            ValidationRow("405", F.request(method: "GET"), .methodNotAllowed),
            ValidationRow("404", F.request(path: "/3/other"), .badPath),
        ])
        XCTAssertEqual(verdicts.map(\.status), [405, 404])
    }

    func testBadPathRecordsNoToken() {
        let verdict = F.validate(F.request(path: "/4/device/\(F.token)"))
        XCTAssertEqual(verdict.reason, .badPath)
        XCTAssertNil(verdict.deviceToken)
        XCTAssertEqual(verdict.topic, F.topic, "headers are still parsed for the record")
    }
}
