import XCTest

@testable import HTTP2Transport

/// `HTTP1Server.reasonPhrase(_:)`: the HTTP/1.1 status line names every status the control
/// server sends (RFC 9110 section 15), never a placeholder like "429 Status".
final class HTTP1ReasonPhraseTests: XCTestCase {
    func testEveryStatusTheControlServerSendsHasItsRegisteredPhrase() {
        let expected: [Int: String] = [
            200: "OK", 201: "Created", 204: "No Content", 400: "Bad Request", 401: "Unauthorized",
            403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable",
            409: "Conflict", 410: "Gone", 413: "Content Too Large", 415: "Unsupported Media Type",
            429: "Too Many Requests", 499: "Client Closed Request", 500: "Internal Server Error",
            503: "Service Unavailable", 504: "Gateway Timeout",
        ]
        for (status, phrase) in expected {
            XCTAssertEqual(HTTP1Server.reasonPhrase(status), phrase, "status \(status)")
        }
    }

    func testAnUnlistedStatusGetsItsClassName() {
        XCTAssertEqual(HTTP1Server.reasonPhrase(299), "Success")
        XCTAssertEqual(HTTP1Server.reasonPhrase(418), "Client Error")
        XCTAssertEqual(HTTP1Server.reasonPhrase(599), "Server Error")
        for status in 100...599 {
            XCTAssertNotEqual(HTTP1Server.reasonPhrase(status), "Status", "status \(status)")
        }
    }
}
