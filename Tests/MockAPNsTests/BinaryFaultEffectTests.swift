import APNsCore
import Faults
import LegacyBinary
import XCTest

@testable import MockAPNs

/// A fault action in binary terms (docs/legacy-binary.md §8).
final class BinaryFaultEffectTests: XCTestCase {
    func testEachActionTable() {
        let rows: [(FaultAction, BinaryFaultEffect?, UInt)] = [
            (
                .respond(FaultResponse(reason: .badDeviceToken)),
                BinaryFaultEffect(
                    delayMilliseconds: 0, end: .status(.invalidToken), response: FaultResponse(reason: .badDeviceToken)),
                #line
            ),
            (
                .respond(FaultResponse(reason: .shutdown)),
                BinaryFaultEffect(
                    delayMilliseconds: 0, end: .status(.shutdown), response: FaultResponse(reason: .shutdown)), #line
            ),
            (
                .respond(FaultResponse(reason: .internalServerError)),
                BinaryFaultEffect(
                    delayMilliseconds: 0, end: .status(.processingError),
                    response: FaultResponse(reason: .internalServerError)), #line
            ),
            (.close(.beforeResponse), BinaryFaultEffect(delayMilliseconds: 0, end: .close, response: nil), #line),
            (.reset(.afterResponse), BinaryFaultEffect(delayMilliseconds: 0, end: .reset, response: nil), #line),
            (
                .delay(milliseconds: 300, then: .close(.beforeResponse)),
                BinaryFaultEffect(delayMilliseconds: 300, end: .close, response: nil), #line
            ),
            (.delay(milliseconds: 300, then: nil), nil, #line),
            (.noResponse, nil, #line),
            (.blackhole, nil, #line),
        ]
        for (action, effect, line) in rows {
            XCTAssertEqual(BinaryFaultEffect(action), effect, line: line)
            XCTAssertEqual(action.hasBinaryMeaning, effect != nil, line: line)
        }
    }
}
