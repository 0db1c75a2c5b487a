import HTTPFields
import XCTest

final class HTTP2ErrorCodeTests: XCTestCase {
    func testNamesFollowRFC9113() {
        XCTAssertEqual(HTTP2ErrorCode.names.count, 14)
        XCTAssertEqual(HTTP2ErrorCode.noError.name, "NO_ERROR")
        XCTAssertEqual(HTTP2ErrorCode.refusedStream.name, "REFUSED_STREAM")
        XCTAssertEqual(HTTP2ErrorCode.http11Required.name, "HTTP_1_1_REQUIRED")
        XCTAssertNil(HTTP2ErrorCode(rawValue: 14).name)
        XCTAssertEqual(HTTP2ErrorCode(name: "enhance_your_calm"), .enhanceYourCalm)
        XCTAssertNil(HTTP2ErrorCode(name: "NO_ERRO"))
    }

    func testDescriptionIsDecimalAndHexDescriptionIsHex() {
        XCTAssertEqual(HTTP2ErrorCode.refusedStream.description, "REFUSED_STREAM (7)")
        XCTAssertEqual(HTTP2ErrorCode(rawValue: 30).description, "30")
        XCTAssertEqual(HTTP2ErrorCode.enhanceYourCalm.hexDescription, "ENHANCE_YOUR_CALM (0xb)")
        XCTAssertEqual(HTTP2ErrorCode(rawValue: 30).hexDescription, "unknown (0x1e)")
    }
}
