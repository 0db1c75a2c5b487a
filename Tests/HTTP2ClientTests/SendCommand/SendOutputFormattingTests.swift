import HTTP2Client
import HTTPFields
import XCTest

/// What `mock-apns send` prints, from result values: one answer, and the summary of many.
final class SendOutputFormattingTests: XCTestCase {
    private func response(_ status: Int, _ headers: [HeaderField] = [], body: String = "", latency: Double = 1)
        -> HTTP2ClientResult
    {
        HTTP2ClientResult(
            index: 0, streamID: 1,
            outcome: .response(
                HTTP2ClientResponse(
                    status: status, headers: headers,
                    body: Array(body.utf8))),
            latency: latency)
    }

    func testSuccess() {
        let result = response(
            200,
            [
                HeaderField(name: "apns-id", value: "8FE746A6-5B20-4E85-9E35-7B9B3E6C4F0E"),
                HeaderField(name: "apns-unique-id", value: "a8f2b9c4-1d3e-4f5a-8b6c-7d8e9f0a1b2c"),
            ])
        XCTAssertEqual(
            SendReport.lines(for: result, goAway: nil),
            [
                "status 200",
                "apns-id: 8FE746A6-5B20-4E85-9E35-7B9B3E6C4F0E",
                "apns-unique-id: a8f2b9c4-1d3e-4f5a-8b6c-7d8e9f0a1b2c",
            ])
        XCTAssertEqual(SendReport.lines(for: response(200, body: "ignored"), goAway: nil), ["status 200"])
    }

    /// A channel request's answer: its IDs, and a read's or list's body whole.
    func testChannelAnswers() {
        let created = response(
            201,
            [
                HeaderField(name: "apns-request-id", value: "a8f2b9c4-1d3e-4f5a-8b6c-7d8e9f0a1b2c"),
                HeaderField(name: "apns-channel-id", value: "dHN0LXNyY2gtY2hubA=="),
            ])
        XCTAssertEqual(
            SendReport.lines(for: created, goAway: nil, showsBody: true),
            [
                "status 201", "apns-request-id: a8f2b9c4-1d3e-4f5a-8b6c-7d8e9f0a1b2c",
                "apns-channel-id: dHN0LXNyY2gtY2hubA==",
            ])
        let list =
            #"{"channels":["# + Array(repeating: #""dHN0LXNyY2gtY2hubA==""#, count: 20).joined(separator: ",") + "]}"
        XCTAssertEqual(
            SendReport.lines(for: response(200, body: list), goAway: nil, showsBody: true),
            ["status 200", "body: " + list])
    }

    func testAPNsErrors() {
        let id = HeaderField(name: "apns-id", value: "8FE746A6-5B20-4E85-9E35-7B9B3E6C4F0E")
        XCTAssertEqual(
            SendReport.lines(for: response(400, [id], body: #"{"reason":"BadDeviceToken"}"#), goAway: nil),
            [
                "status 400", "apns-id: 8FE746A6-5B20-4E85-9E35-7B9B3E6C4F0E", "reason: BadDeviceToken",
            ])
        XCTAssertEqual(
            SendReport.lines(
                for: response(410, [id], body: #"{"reason":"Unregistered","timestamp":1700000000000}"#),
                goAway: nil),
            [
                "status 410", "apns-id: 8FE746A6-5B20-4E85-9E35-7B9B3E6C4F0E", "reason: Unregistered",
                "timestamp: 1700000000000 (2023-11-14T22:13:20.000Z)",
            ])
    }

    func testOtherErrorBodiesAreShownShortened() {
        XCTAssertEqual(
            SendReport.lines(for: response(404, body: "<html>\n<b>404</b>\n</html>\n"), goAway: nil),
            ["status 404", "body: <html> <b>404</b> </html>"])
        let long = String(repeating: "x", count: 300)
        XCTAssertEqual(
            SendReport.lines(for: response(500, body: long), goAway: nil),
            ["status 500", "body: " + String(repeating: "x", count: 200) + "…"])
        XCTAssertEqual(SendReport.lines(for: response(503), goAway: nil), ["status 503"])
    }

    func testResetsFailuresAndGoAway() {
        let goAway = HTTP2GoAway(errorCode: .enhanceYourCalm, lastStreamID: 0, debugData: Array("too fast".utf8))
        let reset = HTTP2ClientResult(index: 0, streamID: 1, outcome: .streamReset(.refusedStream), latency: 1)
        XCTAssertEqual(SendReport.lines(for: reset, goAway: nil), ["stream reset: REFUSED_STREAM (0x7)"])
        let refused = HTTP2ClientResult(index: 0, streamID: 1, outcome: .failed(.goAway(goAway)), latency: 1)
        XCTAssertEqual(
            SendReport.lines(for: refused, goAway: goAway),
            [
                "no response: not processed: the server sent GOAWAY",
                #"goaway: ENHANCE_YOUR_CALM (0xb), last stream 0, debug data "too fast""#,
            ])
        let timedOut = HTTP2ClientResult(
            index: 0, streamID: 1,
            outcome: .failed(.timedOut(what: "waiting for responses", seconds: 30)), latency: 30_000)
        XCTAssertEqual(
            SendReport.lines(for: timedOut, goAway: nil), ["no response: timed out after 30 s waiting for responses"])
        let answeredThenGone = response(200)
        XCTAssertEqual(
            SendReport.lines(for: answeredThenGone, goAway: HTTP2GoAway(errorCode: .noError, lastStreamID: 1)),
            ["status 200", "goaway: NO_ERROR (0x0), last stream 1"])
    }

    func testSummary() {
        var results: [HTTP2ClientResult] = []
        for index in 1...96 { results.append(response(200, latency: Double(index))) }
        results.append(response(400, body: #"{"reason":"BadDeviceToken"}"#, latency: 97))
        results.append(response(400, body: #"{"reason":"BadTopic"}"#, latency: 98))
        results.append(response(400, body: #"{"reason":"BadDeviceToken"}"#, latency: 99))
        results.append(HTTP2ClientResult(index: 99, streamID: 199, outcome: .streamReset(.refusedStream), latency: 100))
        let summary = SendSummary(results: results, elapsed: 250)
        XCTAssertEqual(summary.latency(percentile: 50), 50)
        XCTAssertEqual(summary.latency(percentile: 99), 99)
        XCTAssertEqual(summary.requestsPerSecond, 400)
        let goAway = HTTP2GoAway(errorCode: .noError, lastStreamID: 199)
        XCTAssertEqual(
            summary.lines(connection: "https://localhost:2197", goAway: goAway),
            [
                "sent 100 requests to https://localhost:2197",
                "status 200: 96",
                "status 400: 3",
                "reason BadDeviceToken: 2",
                "reason BadTopic: 1",
                "stream reset REFUSED_STREAM (0x7): 1",
                "goaway: NO_ERROR (0x0), last stream 199",
                "elapsed 250.0 ms, 400.0 requests/s",
                "latency p50 50.00 ms, p99 99.00 ms",
            ])
    }

    func testSummaryWithoutResponses() {
        let failed = HTTP2ClientResult(index: 0, streamID: nil, outcome: .failed(.connectionClosed), latency: nil)
        let summary = SendSummary(results: [failed, failed], elapsed: 0)
        XCTAssertNil(summary.latency(percentile: 50))
        XCTAssertEqual(
            summary.lines(connection: "http://127.0.0.1:80", goAway: nil),
            [
                "sent 2 requests to http://127.0.0.1:80",
                "no response (the server closed the connection): 2",
                "elapsed 0.0 ms, 0.0 requests/s",
            ])
    }

    func testRequestBuilder() {
        var options = SendOptions()
        options.deviceToken = "abc123"
        XCTAssertEqual(
            SendRequestBuilder.request(options, payload: [1]),
            HTTP2ClientRequest(method: "POST", path: "/3/device/abc123", headers: [], body: [1]))
        options.topic = "com.example"
        options.pushType = "alert"
        options.priority = 10
        options.expiration = 0
        options.collapseID = "c"
        options.apnsID = "8FE746A6-5B20-4E85-9E35-7B9B3E6C4F0E"
        options.authorization = "bearer t"
        options.extraHeaders = [
            HeaderField(name: "apns-priority", value: "5"), HeaderField(name: "x-extra", value: "1"),
        ]
        XCTAssertEqual(
            SendRequestBuilder.request(options, payload: []).headers,
            [
                HeaderField(name: "apns-topic", value: "com.example"),
                HeaderField(name: "apns-push-type", value: "alert"),
                HeaderField(name: "apns-expiration", value: "0"), HeaderField(name: "apns-collapse-id", value: "c"),
                HeaderField(name: "apns-id", value: "8FE746A6-5B20-4E85-9E35-7B9B3E6C4F0E"),
                HeaderField(name: "authorization", value: "bearer t"),
                HeaderField(name: "apns-priority", value: "5"), HeaderField(name: "x-extra", value: "1"),
            ])
    }

    func testErrorBodyParsing() {
        XCTAssertEqual(
            APNsErrorBody(body: Array(#"{"reason":"Unregistered","timestamp":"12"}"#.utf8)),
            APNsErrorBody(reason: "Unregistered", timestamp: 12))
        XCTAssertNil(APNsErrorBody(body: Array(#"{"reason":3}"#.utf8)))
        XCTAssertEqual(
            APNsErrorBody(body: Array(#"{"reason":"Unregistered","timestamp":1700000000000.9,"later":{"x":1}}"#.utf8)),
            APNsErrorBody(reason: "Unregistered", timestamp: 1_700_000_000_000), "unknown keys are ignored")
        XCTAssertEqual(
            APNsErrorBody(body: Array(#"{"timestamp":null,"reason":"BadTopic"}"#.utf8)),
            APNsErrorBody(reason: "BadTopic"))
        XCTAssertNil(APNsErrorBody(body: Array(#"["reason"]"#.utf8)))
        XCTAssertNil(APNsErrorBody(body: Array("not json".utf8)))
        XCTAssertNil(APNsErrorBody(body: []))
    }
}
