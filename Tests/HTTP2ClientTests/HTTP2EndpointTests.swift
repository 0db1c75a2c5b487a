import HTTP2Client
import XCTest

/// URL parsing: schemes, default ports, IPv6 brackets, and what is refused.
final class HTTP2EndpointTests: XCTestCase {
    func testValidURLs() throws {
        let table: [(String, HTTP2Endpoint, String)] = [
            ("https://localhost:2197", HTTP2Endpoint(secure: true, host: "localhost", port: 2197), "localhost:2197"),
            (
                "https://api.push.apple.com", HTTP2Endpoint(secure: true, host: "api.push.apple.com", port: 443),
                "api.push.apple.com"
            ),
            ("HTTPS://Example.com:443/", HTTP2Endpoint(secure: true, host: "Example.com", port: 443), "Example.com"),
            ("http://127.0.0.1:8080", HTTP2Endpoint(secure: false, host: "127.0.0.1", port: 8080), "127.0.0.1:8080"),
            ("http://localhost", HTTP2Endpoint(secure: false, host: "localhost", port: 80), "localhost"),
            ("https://[::1]:2197", HTTP2Endpoint(secure: true, host: "::1", port: 2197), "[::1]:2197"),
            ("https://[::1]", HTTP2Endpoint(secure: true, host: "::1", port: 443), "[::1]"),
            ("http://[2001:db8::7]:80/", HTTP2Endpoint(secure: false, host: "2001:db8::7", port: 80), "[2001:db8::7]"),
        ]
        for (url, expected, authority) in table {
            let endpoint = try HTTP2Endpoint(url: url)
            XCTAssertEqual(endpoint, expected, url)
            XCTAssertEqual(endpoint.authority, authority, url)
        }
        XCTAssertEqual("\(try HTTP2Endpoint(url: "https://[::1]"))", "https://[::1]:443")
    }

    func testInvalidURLs() {
        let table: [(String, String)] = [
            ("localhost:2197", "expected https://HOST[:PORT] or http://HOST[:PORT]"),
            ("ftp://localhost", "expected https://HOST[:PORT] or http://HOST[:PORT]"),
            ("https://", "the host is empty"),
            ("https://:2197", "the host is empty"),
            ("https://localhost:0", "the port must be a number from 1 to 65535, got '0'"),
            ("https://localhost:70000", "the port must be a number from 1 to 65535, got '70000'"),
            ("https://localhost:abc", "the port must be a number from 1 to 65535, got 'abc'"),
            ("https://localhost:", "the port must be a number from 1 to 65535, got ''"),
            ("https://localhost/3/device/abc", "expected no path, query or fragment after the host and port"),
            ("https://localhost?x=1", "expected no path, query or fragment after the host and port"),
            ("https://user@localhost", "user info is not supported"),
            ("https://::1:2197", "put an IPv6 address in brackets, e.g. https://[::1]:2197"),
            ("https://[::1", "missing ']' after the IPv6 address"),
            ("https://[::1]2197", "expected ':PORT' after ']'"),
        ]
        for (url, reason) in table {
            XCTAssertThrowsError(try HTTP2Endpoint(url: url), url) { error in
                XCTAssertEqual(error as? HTTP2ClientError, .invalidURL(url, reason: reason), url)
            }
        }
    }
}
