import HTTP2Client
import HTTPFields
import XCTest

/// `mock-apns send`'s channel and broadcast requests (docs/broadcast.md §A2): the flags, the
/// requests they build, and their usage errors.
final class SendChannelActionTests: XCTestCase {
    private func options(_ arguments: [String]) throws -> SendOptions {
        guard case .send(let options) = try SendArgumentParser.parse(arguments) else {
            XCTFail("expected .send")
            return SendOptions()
        }
        return options
    }

    private func request(_ arguments: [String], payload: String = "") throws -> HTTP2ClientRequest {
        SendRequestBuilder.request(try options(arguments), payload: Array(payload.utf8))
    }

    func testRequests() throws {
        var r = try request(["--topic", "com.x", "--create-channel", "--storage-policy", "0"])
        XCTAssertEqual(r.method, "POST")
        XCTAssertEqual(r.path, "/1/apps/com.x/channels")
        XCTAssertEqual(r.headers, [])  // --topic names the app; it is not apns-topic
        XCTAssertEqual(
            String(decoding: r.body, as: UTF8.self), #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#)
        r = try request(["--topic", "com.x", "--create-channel"])
        XCTAssertEqual(
            String(decoding: r.body, as: UTF8.self), #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)

        r = try request(["--topic", "com.x", "--list-channels"])
        XCTAssertEqual([r.method, r.path], ["GET", "/1/apps/com.x/all-channels"])
        XCTAssertEqual(r.body, [])

        for (flag, method) in [("--read-channel", "GET"), ("--delete-channel", "DELETE")] {
            r = try request(["--topic", "com.x", flag, "AAAA"])
            XCTAssertEqual([r.method, r.path], [method, "/1/apps/com.x/channels"])
            XCTAssertEqual(r.headers, [HeaderField(name: "apns-channel-id", value: "AAAA")])
        }

        let update = #"{"aps":{"event":"update"}}"#
        r = try request(["--topic", "com.x", "--broadcast", "AAAA", "--priority", "5", update], payload: update)
        XCTAssertEqual([r.method, r.path], ["POST", "/4/broadcasts/apps/com.x"])
        XCTAssertEqual(
            r.headers,
            [
                HeaderField(name: "apns-channel-id", value: "AAAA"),
                HeaderField(name: "apns-push-type", value: "liveactivity"),
                HeaderField(name: "apns-priority", value: "5"),
            ])
        XCTAssertEqual(String(decoding: r.body, as: UTF8.self), update)
        r = try request(["--topic", "com.x", "--broadcast", "AAAA", "--push-type", "LiveActivity", update])
        XCTAssertEqual(r.headers.first { $0.name == "apns-push-type" }?.value, "LiveActivity")
    }

    func testUsageErrors() {
        let table: [([String], String)] = [
            (["--create-channel"], "missing --topic BUNDLE_ID (the app whose channels these are)"),
            (
                ["--topic", "com.x", "--create-channel", "--list-channels"],
                "--create-channel and --list-channels: give one"
            ),
            (
                ["--topic", "com.x", "--create-channel", "--device-token", "ab"],
                "--device-token is for device pushes; a channel request names no device"
            ),
            (
                ["--topic", "com.x", "--list-channels", "{}"],
                "a channel request takes no payload argument (only --broadcast does)"
            ),
            (
                ["--topic", "com.x", "--create-channel", "--storage-policy", "2"],
                "--storage-policy: expected 0 (no message stored) or 1 (most recent), got '2'"
            ),
            (["--device-token", "ab", "--storage-policy", "1", "{}"], "--storage-policy needs --create-channel"),
            (["--topic", "com.x", "--delete-channel", ""], "--delete-channel: the value is empty"),
            (
                ["--topic", "com.x", "--broadcast", "AAAA"],
                #"missing the payload: give the JSON, @FILE or @- (e.g. '{"aps":{"alert":"Hello"}}')"#
            ),
        ]
        for (arguments, message) in table {
            XCTAssertThrowsError(try SendArgumentParser.parse(arguments), "\(arguments)") { error in
                XCTAssertEqual((error as? SendUsageError)?.message, message, "\(arguments)")
            }
        }
    }
}
