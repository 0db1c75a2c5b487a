import Console
import HTTPFields
import Synchronization
import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import JSONSupport
@testable import Recording
@testable import TestFixtures

/// `GET /console`, `GET /console/{asset}` and `POST /v1/send` (docs/console.md).
final class ControlAPIConsoleTests: XCTestCase {
    private typealias F = StoreFixtures

    /// A sender that records the push and answers what it is told, on the caller's thread or
    /// never.
    private final class FakeSender: PushSender {
        let sent = Mutex<[ComposedPush]>([])
        let answer: ComposedPushAnswer?
        /// Completions held until `answerNow`.
        let held = Mutex<[@Sendable (ComposedPushAnswer) -> Void]>([])
        init(answer: ComposedPushAnswer?) { self.answer = answer }
        func send(_ push: ComposedPush, completion: @escaping @Sendable (ComposedPushAnswer) -> Void) {
            sent.withLock { $0.append(push) }
            held.withLock { $0.append(completion) }
        }
        /// Completes the sends so far with `answer`, as the sender's thread would.
        func answerNow() {
            guard let answer else { return }
            for completion in held.withLock({ $0 }) { completion(answer) }
        }
    }

    private func makeAPI(sender: (any PushSender)? = nil) -> ControlAPI {
        ControlAPI(
            store: DeliveryStore(capacity: 100), registry: DeviceRegistry(), clock: { 1_796_028_543.5 },
            sender: sender, status: { F.status() })
    }

    private func header(_ response: ControlResponse, _ name: String) -> String? {
        response.headers.first { $0.name == name }?.value
    }

    func testThePageAndItsFilesAreServedWithTheirTypesAndPolicy() {
        let api = makeAPI()
        for (path, type) in [
            ("/console", "text/html; charset=utf-8"), ("/console/", "text/html; charset=utf-8"),
            ("/console/console.js", "text/javascript; charset=utf-8"),
            ("/console/console.css", "text/css; charset=utf-8"),
        ] {
            let response = api.respond("GET", path)
            XCTAssertEqual(response.status, 200, path)
            XCTAssertEqual(response.contentType, type, path)
            XCTAssertFalse(response.body.isEmpty, path)
            XCTAssertEqual(
                header(response, "content-security-policy"),
                ConsoleAsset.securityHeaders.first { $0.name == "content-security-policy" }?.value, path)
            XCTAssertEqual(header(response, "x-content-type-options"), "nosniff", path)
        }
        XCTAssertEqual(api.respond("GET", "/console").body, ConsoleAsset.page.bytes)
    }

    func testOtherConsolePathsAreNotFoundAndOnlyGetIsAllowed() {
        let api = makeAPI()
        let (status, json) = api.call("GET", "/console/secret.txt")
        XCTAssertEqual(status, 404)
        XCTAssertEqual(
            json["error"] as? String, "no console file secret.txt (files: console.html, console.css, console.js)")
        XCTAssertEqual(api.respond("GET", "/console/%2E%2E%2FPackage.swift").status, 404)
        XCTAssertEqual(api.respond("GET", "/console/a/b").status, 404)
        XCTAssertEqual(api.respond("POST", "/console").status, 405)
        XCTAssertEqual(api.respond("GET", "/console?x=1").status, 400)
    }

    func testSendHandsThePushToTheSenderAndAnswersWithTheRecord() throws {
        let id = "6F1D5D8A-8E1B-4C0A-9D1E-6F8B1A2C3D4E"
        let sender = FakeSender(
            answer: ComposedPushAnswer(
                status: 400, headers: [HeaderField(name: "apns-id", value: id)],
                body: Array(#"{"reason":"BadDeviceToken"}"#.utf8)))
        let api = makeAPI(sender: sender)
        api.store.append(F.record(apnsID: "00000000-0000-0000-0000-000000000000"))
        let body =
            #"{"token": "ABab", "listener": "default", "headers": [{"name": "APNs-Topic", "value": "com.example.app"}], "payload": {"aps": {"alert": "hi"}}}"#
        guard
            case .wait(var wait) = api.handle(
                ControlRequest(method: "POST", target: "/v1/send", body: Array(body.utf8)))
        else { return XCTFail("POST /v1/send answered at once") }
        XCTAssertEqual(wait.timeoutMilliseconds, SendTicket.timeoutMilliseconds)
        let push = try XCTUnwrap(sender.sent.withLock { $0.first })
        XCTAssertEqual(push.token, "abab")
        XCTAssertEqual(push.path, "/3/device/abab")
        XCTAssertEqual(push.listener, "default")
        XCTAssertEqual(push.headers, [HeaderField(name: "apns-topic", value: "com.example.app")])
        XCTAssertEqual(String(decoding: push.payload, as: UTF8.self), #"{"aps":{"alert":"hi"}}"#)
        // The record of the push appears once the listener answered it.
        XCTAssertNil(api.waitResult(&wait, timedOut: false))
        api.store.append(F.record(status: 400, reason: .badDeviceToken, apnsID: id))
        sender.answerNow()
        let response = try XCTUnwrap(api.waitResult(&wait, timedOut: false))
        XCTAssertEqual(response.status, 200)
        let json = F.object(response.body)
        XCTAssertEqual(json["status"] as? Int, 400)
        XCTAssertEqual(json["reason"] as? String, "BadDeviceToken")
        XCTAssertEqual(json["apnsId"] as? String, id)
        XCTAssertEqual(json["seq"] as? Int, 2)
        XCTAssertTrue(json["error"] is NSNull)
    }

    func testAStringPayloadIsSentAsItsBytesAndNoAnswerTimesOut() throws {
        let sender = FakeSender(answer: nil)
        let api = makeAPI(sender: sender)
        guard
            case .wait(var wait) = api.handle(
                ControlRequest(
                    method: "POST", target: "/v1/send",
                    body: Array(#"{"token": "ab", "payload": "{ \"a\" : 1 }"}"#.utf8)))
        else { return XCTFail("POST /v1/send answered at once") }
        XCTAssertEqual(sender.sent.withLock { $0.first?.payload }, Array(#"{ "a" : 1 }"#.utf8))
        XCTAssertNil(api.waitResult(&wait, timedOut: false))
        let response = try XCTUnwrap(api.waitResult(&wait, timedOut: true))
        XCTAssertEqual(response.status, 504)
    }

    func testAnswerlessSendsSayWhy() throws {
        let sender = FakeSender(answer: ComposedPushAnswer(error: "no listener named x"))
        let api = makeAPI(sender: sender)
        guard
            case .wait(var wait) = api.handle(
                ControlRequest(
                    method: "POST", target: "/v1/send", body: Array(#"{"token": "ab", "listener": "x"}"#.utf8)))
        else { return XCTFail("POST /v1/send answered at once") }
        sender.answerNow()
        let json = F.object(try XCTUnwrap(api.waitResult(&wait, timedOut: false)).body)
        XCTAssertTrue(json["status"] is NSNull)
        XCTAssertTrue(json["seq"] is NSNull)
        XCTAssertEqual(json["error"] as? String, "no listener named x")
    }

    func testBadSendBodiesAreRefusedNamingTheField() {
        let api = makeAPI(sender: FakeSender(answer: nil))
        let rows: [(String, String)] = [
            (#"{"token": "xyz"}"#, #"token: expected hex digits, got "xyz""#),
            (#"{"token": ""}"#, #"token: expected hex digits, got """#),
            (
                #"{"token": "ab", "headers": [{"name": ":path", "value": "/"}]}"#,
                "headers[0].name: expected a header field name, not a pseudo-header"
            ),
            (#"{"token": "ab", "headers": [{"name": "content-length", "value": "1"}]}"#, "headers[0].name: "),
            (#"{"token": "ab", "payloads": "{}"}"#, "payloads"),
            (#"{"headers": []}"#, "token"),
        ]
        for (body, expected) in rows {
            let (status, json) = api.call("POST", "/v1/send", body: body)
            XCTAssertEqual(status, 400, body)
            XCTAssertTrue((json["error"] as? String ?? "").contains(expected), "\(body): \(json)")
        }
        XCTAssertEqual(makeAPI().call("POST", "/v1/send", body: #"{"token": "ab"}"#).0, 503)
    }

    /// A header HTTP/2 forbids (a value with CR, LF, NUL or another control character, or
    /// leading or trailing whitespace; a connection-specific field; a `te` but `trailers`) is a
    /// 400 naming `headers[N].name` or `headers[N].value`, nothing sent (it was sent, and the
    /// listener's reset stream answered 200 with an error).
    func testHeadersHTTP2ForbidsAreRefusedNamingTheField() {
        let sender = FakeSender(answer: nil)
        let api = makeAPI(sender: sender)
        let topic = #"{"name": "apns-topic", "value": "com.example.app"}, "#
        let rows: [(String, String)] = [
            (
                #"{"name": "apns-id", "value": "a\r\nx-injected: 1"}"#,
                #"headers[1].value: expected a header value without CR, LF, NUL"#
            ),
            (#"{"name": "apns-id", "value": "a\nb"}"#, "headers[1].value: "),
            (#"{"name": "apns-id", "value": "a\u0000b"}"#, #"got "a\u0000b""#),
            (#"{"name": "apns-id", "value": "a\u007fb"}"#, "headers[1].value: "),
            (
                #"{"name": "apns-topic", "value": " com.example.app"}"#,
                "headers[1].value: expected a header value without leading or trailing"
            ),
            (#"{"name": "apns-topic", "value": "com.example.app\t"}"#, "headers[1].value: "),
            (
                #"{"name": "Connection", "value": "close"}"#,
                "headers[1].name: expected a header field name that HTTP/2 allows, not the connection-specific connection"
            ),
            (#"{"name": "keep-alive", "value": "1"}"#, "headers[1].name: "),
            (#"{"name": "proxy-connection", "value": "1"}"#, "headers[1].name: "),
            (#"{"name": "transfer-encoding", "value": "chunked"}"#, "headers[1].name: "),
            (#"{"name": "upgrade", "value": "h2c"}"#, "headers[1].name: "),
            (#"{"name": "te", "value": "gzip"}"#, #"headers[1].value: expected "trailers""#),
            (#"{"name": "x a", "value": "1"}"#, "headers[1].name: expected a header name of letters"),
        ]
        for (header, expected) in rows {
            let body = #"{"token": "ab", "headers": ["# + topic + header + "]}"
            let (status, json) = api.call("POST", "/v1/send", body: body)
            XCTAssertEqual(status, 400, body)
            XCTAssertTrue((json["error"] as? String ?? "").contains(expected), "\(body): \(json)")
        }
        XCTAssertEqual(sender.sent.withLock { $0.count }, 0)
        // What HTTP/2 allows still goes: a tab inside a value, te: trailers, any UTF-8.
        let allowed =
            #"{"token": "ab", "headers": ["# + topic
            + #"{"name": "te", "value": "trailers"}, {"name": "x-note", "value": "a\tb é"}]}"#
        guard case .wait = api.handle(ControlRequest(method: "POST", target: "/v1/send", body: Array(allowed.utf8)))
        else { return XCTFail("an allowed header was refused") }
        XCTAssertEqual(sender.sent.withLock { $0.first?.headers.last?.value }, "a\tb é")
    }

    /// An unknown `listener` is refused with 404 naming the field before anything is sent
    /// (it was answered 200 with an error).
    func testAnUnknownListenerIsRefusedNamingTheField() {
        final class NamedSender: PushSender {
            let sent = Mutex(0)
            var listenerNames: [String]? { ["default", "prod"] }
            func send(_ push: ComposedPush, completion: @escaping @Sendable (ComposedPushAnswer) -> Void) {
                sent.withLock { $0 += 1 }
            }
        }
        let sender = NamedSender()
        let api = makeAPI(sender: sender)
        let (status, json) = api.call("POST", "/v1/send", body: #"{"token": "ab", "listener": "g7"}"#)
        XCTAssertEqual(status, 404)
        XCTAssertEqual(json["error"] as? String, #"listener: no listener named "g7" (listeners: default, prod)"#)
        XCTAssertEqual(sender.sent.withLock { $0 }, 0)
    }
}
