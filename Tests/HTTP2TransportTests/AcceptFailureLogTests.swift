import Glibc
import HTTP2Transport
import XCTest

final class AcceptFailureLogTests: XCTestCase {
    func testAtMostOneLineASecondNamingTheFailuresSinceTheLast() throws {
        var log = AcceptFailureLog(what: "control API")
        let first = try XCTUnwrap(log.failed(code: EMFILE, now: 100))
        XCTAssertTrue(first.contains("control API"), first)
        XCTAssertTrue(first.contains(String(cString: strerror(EMFILE))), first)
        XCTAssertTrue(first.contains("1 time(s)"), first)
        for step in 1...50 { XCTAssertNil(log.failed(code: EMFILE, now: 100 + Double(step) * 0.019)) }
        let next = try XCTUnwrap(log.failed(code: ENFILE, now: 101))
        XCTAssertTrue(next.contains("51 time(s)"), next)
        XCTAssertTrue(next.contains(String(cString: strerror(ENFILE))), next)
        XCTAssertNil(log.failed(code: EMFILE, now: 101.5))
    }
}
