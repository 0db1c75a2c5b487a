import XCTest

@testable import APNsCore
@testable import Faults
@testable import TestFixtures

/// `respond` (and `sickConnection`) with a status alone take Apple's reason for it.
final class FaultResponseStatusAloneTests: XCTestCase {
    func testEveryGenericStatusTakesItsReason() throws {
        let table: [(Int, Reason)] = [
            (403, .forbidden), (404, .badPath), (405, .methodNotAllowed), (410, .unregistered),
            (413, .payloadTooLarge), (429, .tooManyRequests), (500, .internalServerError), (503, .serviceUnavailable),
        ]
        for (status, reason) in table {
            for type in ["respond", "sickConnection"] {
                let json = #"{"action":{"type":"\#(type)","status":\#(status)}}"#
                let rule = try FaultRule.decode(json: Array(json.utf8))
                let expected = FaultResponse(status: status, reason: reason)
                XCTAssertEqual(rule.action, type == "respond" ? .respond(expected) : .sickConnection(expected), json)
                XCTAssertEqual(reason.status, status, "the generic reason is one Apple gives that status")
            }
        }
        XCTAssertNil(Reason.generic(forStatus: 400))
        XCTAssertNil(Reason.generic(forStatus: 502))
    }

    func testAReasonGivenStillWins() throws {
        let json = #"{"action":{"type":"respond","status":503,"reason":"Shutdown"}}"#
        XCTAssertEqual(
            try FaultRule.decode(json: Array(json.utf8)).action, .respond(FaultResponse(status: 503, reason: .shutdown))
        )
    }
}
