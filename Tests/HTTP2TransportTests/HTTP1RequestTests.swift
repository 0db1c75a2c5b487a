import HTTP2Transport
import XCTest

/// `HTTP1Request(method:target:)`: the one query parser (libevent's), used by the control server
/// and by the control API tests.
final class HTTP1RequestTests: XCTestCase {
    func testSplitsThePathAndDecodesTheQuery() throws {
        let request = try XCTUnwrap(
            HTTP1Request(method: "GET", target: "/v1/deliveries?topic=com.a+b&status=400&x=%41%2Fz&e="))
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(request.path, "/v1/deliveries")
        XCTAssertEqual(request.query.map(\.name), ["topic", "status", "x", "e"])
        XCTAssertEqual(request.query.map(\.value), ["com.a b", "400", "A/z", ""])
        XCTAssertTrue(request.body.isEmpty)
    }

    func testThePathIsKeptAsSent() throws {
        let request = try XCTUnwrap(HTTP1Request(method: "PUT", target: "/v1/devices/aa%20bb", body: [1, 2]))
        XCTAssertEqual(request.path, "/v1/devices/aa%20bb")
        XCTAssertTrue(request.query.isEmpty)
        XCTAssertEqual(request.body, [1, 2])
    }

    /// libevent refuses a parameter without `=` (the old test-only parser read it as empty).
    func testAParameterWithoutAValueIsRefused() {
        XCTAssertNil(HTTP1Request(method: "GET", target: "/v1/deliveries?flag"))
        XCTAssertNil(HTTP1Request(method: "GET", target: "??"))
    }

    func testAnEncodedNULIsRefused() {
        XCTAssertNil(HTTP1Request(method: "GET", target: "/v1/deliveries?limit=1%00zz"))
        XCTAssertNil(HTTP1Request(method: "GET", target: "/v1/deliveries?token=%00"))
    }
}
