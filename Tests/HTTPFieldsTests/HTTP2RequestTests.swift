import HTTPFields
import XCTest

final class HTTP2RequestTests: XCTestCase {
    func testBodyLengthDefaultsToTheBodyAndStreamToZero() {
        let request = HTTP2Request(
            method: "POST", path: "/3/device/aa", headers: [HeaderField(name: "apns-topic", value: "t")],
            body: [1, 2, 3])
        XCTAssertEqual(request.streamID, 0)
        XCTAssertNil(request.authority)
        XCTAssertEqual(request.bodyLength, 3)
        XCTAssertEqual(request.headers.map(\.name), ["apns-topic"])
    }

    func testACutBodyKeepsTheLengthThatArrived() {
        let request = HTTP2Request(
            streamID: 5, method: "POST", path: "/", authority: "api.push.apple.com", headers: [], body: [0],
            bodyLength: 9000)
        XCTAssertEqual(request.streamID, 5)
        XCTAssertEqual(request.authority, "api.push.apple.com")
        XCTAssertEqual(request.body, [0])
        XCTAssertEqual(request.bodyLength, 9000)
    }
}
