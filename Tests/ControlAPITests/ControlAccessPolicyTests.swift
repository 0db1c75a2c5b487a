import HTTPFields
import JSONSupport
import XCTest

@testable import ControlAPI

/// `ControlAccessPolicy` (README "Security", issue 19 §1): Host, Origin, token and content type.
final class ControlAccessPolicyTests: XCTestCase {
    func request(
        _ method: String, _ path: String, body: String = "", _ headers: [(String, String)]
    ) -> ControlRequest {
        ControlRequest(
            method: method, path: path, body: Array(body.utf8), headers: headers.map { (name: $0.0, value: $0.1) })
    }

    /// A GET of /v1/deliveries with `headers`.
    func request(_ headers: [(String, String)]) -> ControlRequest { request("GET", "/v1/deliveries", headers) }

    func status(_ decision: ControlAccessDecision) -> Int? {
        guard case .answer(let response) = decision else { return nil }
        return response.status
    }

    func message(_ decision: ControlAccessDecision) -> String {
        guard case .answer(let response) = decision else { return "" }
        return String(decoding: response.body, as: UTF8.self)
    }

    func testHostMustBeLoopbackLocalhostOrAllowed() {
        let policy = ControlAccessPolicy(allowedHosts: ["Mock-APNs"])
        for host in [
            "127.0.0.1:8197", "127.0.0.1", "127.3.4.5:1", "localhost", "LOCALHOST:8197", "localhost.:80", "[::1]:8197",
            "[::1]", "[::ffff:127.0.0.1]:8197", "mock-apns:8197", "MOCK-APNS",
        ] {
            XCTAssertEqual(policy.decide(request([("Host", host)])), .serve(extraHeaders: []), host)
        }
        for host in [
            "evil.example", "evil.example:8197", "localhost.evil.example", "128.0.0.1:8197", "10.0.0.1", "[::2]:8197",
            "127.0.0.1:80:80", "[::1", "localhost:http", "mock-apns.evil", "0.0.0.0:8197",
        ] {
            let decision = policy.decide(request([("host", host)]))
            XCTAssertEqual(status(decision), 403, host)
            XCTAssertTrue(message(decision).contains("Host"), message(decision))
        }
        XCTAssertEqual(status(policy.decide(request([]))), 403, "no Host")
        XCTAssertEqual(status(policy.decide(request([("Host", "localhost"), ("Host", "evil.example")]))), 403)
        let any = ControlAccessPolicy(allowedHosts: ["*"])
        XCTAssertEqual(any.decide(request([("Host", "anything.example:1")])), .serve(extraHeaders: []))
    }

    /// The exact request of issue 19: a text/plain "simple" POST from another origin.
    func testCrossOriginStateChangesAreRefused() {
        let policy = ControlAccessPolicy()
        let body = #"{"action":{"type":"respond","reason":"ServiceUnavailable"}}"#
        let attack = request(
            "POST", "/v1/faults", body: body,
            [("Host", "127.0.0.1:8197"), ("Origin", "http://evil.example"), ("Content-Type", "text/plain")])
        XCTAssertEqual(status(policy.decide(attack)), 403)
        XCTAssertTrue(message(policy.decide(attack)).contains("Origin"), message(policy.decide(attack)))
        for method in ["POST", "PUT", "PATCH", "DELETE"] {
            let foreign = request(
                method, "/v1/faults", body: "{}",
                [("Host", "127.0.0.1:8197"), ("Origin", "null"), ("Content-Type", "application/json")])
            XCTAssertEqual(status(policy.decide(foreign)), 403, method)
            let own = request(
                method, "/v1/faults", body: "{}",
                [("Host", "127.0.0.1:8197"), ("Origin", "http://127.0.0.1:8197"), ("Content-Type", "application/json")])
            XCTAssertEqual(policy.decide(own), .serve(extraHeaders: []), method)
        }
        // Reads from another origin are not state changes (the browser keeps the answer from the page).
        let read = request([("Host", "localhost:8197"), ("Origin", "http://evil.example")])
        XCTAssertEqual(policy.decide(read), .serve(extraHeaders: []))
        XCTAssertEqual(
            policy.decide(
                request("OPTIONS", "/v1/faults", [("Host", "localhost"), ("Origin", "http://evil.example")])),
            .serve(extraHeaders: []), "no CORS answer without configured origins")
    }

    func testBodiesMustBeJSON() {
        let policy = ControlAccessPolicy()
        func decide(_ type: String?, body: String) -> ControlAccessDecision {
            policy.decide(
                request(
                    "POST", "/v1/faults", body: body,
                    [("Host", "localhost")] + (type.map { [("Content-Type", $0)] } ?? [])))
        }
        XCTAssertEqual(decide("application/json", body: "{}"), .serve(extraHeaders: []))
        XCTAssertEqual(decide("Application/JSON; charset=utf-8", body: "{}"), .serve(extraHeaders: []))
        XCTAssertEqual(decide(nil, body: ""), .serve(extraHeaders: []), "an empty body without a type")
        XCTAssertEqual(decide("application/json", body: ""), .serve(extraHeaders: []))
        for type in [
            "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx",
        ] {
            XCTAssertEqual(status(decide(type, body: "{}")), 415, type)
            XCTAssertEqual(status(decide(type, body: "")), 415, "\(type), empty")
            XCTAssertTrue(message(decide(type, body: "{}")).contains("application/json"))
        }
        XCTAssertEqual(status(decide(nil, body: "{}")), 415, "a body without a type")
        XCTAssertEqual(
            policy.decide(
                request("GET", "/v1/deliveries", body: "", [("Host", "localhost"), ("Content-Type", "text/plain")])),
            .serve(extraHeaders: []), "a GET is not checked for its type")
    }

    func testConfiguredOriginsGetCORSAndPreflight() {
        let policy = ControlAccessPolicy(allowedOrigins: ["http://localhost:3000/"])
        let cors = [
            HeaderField(name: "access-control-allow-origin", value: "http://localhost:3000"),
            HeaderField(name: "vary", value: "origin"),
        ]
        let post = request(
            "POST", "/v1/faults", body: "{}",
            [("Host", "127.0.0.1:8197"), ("Origin", "http://LOCALHOST:3000"), ("Content-Type", "application/json")])
        XCTAssertEqual(policy.decide(post), .serve(extraHeaders: cors))
        let preflight = policy.decide(
            request(
                "OPTIONS", "/v1/faults",
                [
                    ("Host", "127.0.0.1:8197"), ("Origin", "http://localhost:3000"),
                    ("Access-Control-Request-Method", "POST"),
                ]))
        guard case .answer(let answer) = preflight else { return XCTFail("\(preflight)") }
        XCTAssertEqual(answer.status, 204)
        XCTAssertEqual(Array(answer.headers.prefix(2)), cors)
        XCTAssertTrue(
            answer.headers.contains { $0.name == "access-control-allow-headers" && $0.value.contains("content-type") })
        let other = request(
            "POST", "/v1/faults", body: "{}",
            [("Host", "127.0.0.1:8197"), ("Origin", "http://localhost:3001"), ("Content-Type", "application/json")])
        XCTAssertEqual(status(policy.decide(other)), 403)
        XCTAssertEqual(
            policy.decide(request([("Host", "localhost"), ("Origin", "http://evil.example")])), .serve(extraHeaders: [])
        )
    }

    func testTokenIsRequiredWhenConfigured() {
        let policy = ControlAccessPolicy(token: "s3cret-Token")
        XCTAssertTrue(policy.requiresToken)
        XCTAssertFalse(ControlAccessPolicy().requiresToken)
        XCTAssertFalse("\(policy)".contains("s3cret"), "\(policy)")
        for authorization in ["Bearer s3cret-Token", "bearer s3cret-Token", "BEARER  s3cret-Token"] {
            XCTAssertEqual(
                policy.decide(request([("Host", "localhost"), ("Authorization", authorization)])),
                .serve(extraHeaders: []), authorization)
        }
        for authorization in [
            nil, "Bearer s3cret-token", "Bearer s3cret", "Basic s3cret-Token", "s3cret-Token", "Bearer ",
        ] {
            let decision = policy.decide(
                request([("Host", "localhost")] + (authorization.map { [("Authorization", $0)] } ?? [])))
            XCTAssertEqual(status(decision), 401, authorization ?? "none")
            guard case .answer(let answer) = decision else { continue }
            XCTAssertTrue(answer.headers.contains { $0.name == "www-authenticate" && $0.value.hasPrefix("Bearer") })
            XCTAssertFalse(message(decision).contains("s3cret"), "the answer never shows the token")
        }
        // The Host check comes first: a rebinding page learns nothing about the token.
        XCTAssertEqual(
            status(policy.decide(request([("Host", "evil.example"), ("Authorization", "Bearer s3cret-Token")]))), 403)
    }

    /// The console's static files need no token (a browser opening the page cannot send one);
    /// everything else still does, and the Host check still holds for them.
    func testConsoleFilesNeedNoTokenButKeepTheHostCheck() {
        let policy = ControlAccessPolicy(token: "s3cret")
        for path in ["/console", "/console/", "/console/console.js", "/console/anything"] {
            XCTAssertEqual(
                policy.decide(request("GET", path, [("Host", "127.0.0.1:8197")])), .serve(extraHeaders: []), path)
            XCTAssertEqual(status(policy.decide(request("GET", path, [("Host", "evil.example")]))), 403, path)
        }
        for (method, path) in [
            ("GET", "/v1/deliveries"), ("GET", "/console/a/b"), ("GET", "/consoles"), ("POST", "/console"),
            ("GET", "/v1/console"), ("POST", "/v1/send"),
        ] {
            XCTAssertEqual(status(policy.decide(request(method, path, [("Host", "127.0.0.1:8197")]))), 401, path)
        }
    }
}
