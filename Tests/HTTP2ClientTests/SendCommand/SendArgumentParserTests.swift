import HTTP2Client
import HTTPFields
import XCTest

/// `mock-apns send` arguments: every flag, and every usage error with its message.
final class SendArgumentParserTests: XCTestCase {
    private let token = "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad"
    private let payload = #"{"aps":{"alert":"Hello"}}"#

    private func parse(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) -> SendOptions? {
        do {
            guard case .send(let options) = try SendArgumentParser.parse(arguments) else {
                XCTFail("expected .send", file: file, line: line)
                return nil
            }
            return options
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    func testDefaults() throws {
        let options = try XCTUnwrap(parse(["--device-token", token, payload]))
        var expected = SendOptions()
        expected.deviceToken = token
        expected.payload = .inline(payload)
        XCTAssertEqual(options, expected)
        XCTAssertEqual(options.url, "https://localhost:2197")
        XCTAssertEqual(options.count, 1)
        XCTAssertEqual(options.concurrency, 1)
        XCTAssertEqual(options.timeout, 30)
    }

    func testEveryFlag() throws {
        // (arguments added to the minimal command line, the change they make)
        let table: [([String], (inout SendOptions) -> Void)] = [
            (["--url", "http://127.0.0.1:8080"], { $0.url = "http://127.0.0.1:8080" }),
            (["--url=https://[::1]:2197"], { $0.url = "https://[::1]:2197" }),
            (["--topic", "com.example.app"], { $0.topic = "com.example.app" }),
            (["--push-type", "background"], { $0.pushType = "background" }),
            (["--priority", "5"], { $0.priority = 5 }),
            (["--priority=-1"], { $0.priority = -1 }),
            (["--expiration", "0"], { $0.expiration = 0 }),
            (["--expiration", "1700000000"], { $0.expiration = 1_700_000_000 }),
            (["--collapse-id", "score"], { $0.collapseID = "score" }),
            (
                ["--apns-id", "8FE746A6-5B20-4E85-9E35-7B9B3E6C4F0E"],
                { $0.apnsID = "8FE746A6-5B20-4E85-9E35-7B9B3E6C4F0E" }
            ),
            (["--authorization", "bearer abc.def.ghi"], { $0.authorization = "bearer abc.def.ghi" }),
            (
                ["--header", "X-Custom: one", "--header", "apns-priority:10"],
                {
                    $0.extraHeaders = [
                        HeaderField(name: "x-custom", value: "one"), HeaderField(name: "apns-priority", value: "10"),
                    ]
                }
            ),
            (["--header", "x-empty:"], { $0.extraHeaders = [HeaderField(name: "x-empty", value: "")] }),
            (["--header", "x-colon: a:b"], { $0.extraHeaders = [HeaderField(name: "x-colon", value: "a:b")] }),
            (["--cacert", "tls/ca.pem"], { $0.tls.caCertificatePath = "tls/ca.pem" }),
            (["--insecure"], { $0.tls.insecure = true }),
            (["--cert", "client.pem"], { $0.tls.certificatePath = "client.pem" }),
            (
                ["--cert", "client.pem", "--cert-key", "client-key.pem"],
                {
                    $0.tls.certificatePath = "client.pem"
                    $0.tls.keyPath = "client-key.pem"
                }
            ),
            (
                ["--count", "100", "--concurrency", "10"],
                {
                    $0.count = 100
                    $0.concurrency = 10
                }
            ),
            (["--timeout", "2.5"], { $0.timeout = 2.5 }),
        ]
        for (extra, change) in table {
            var expected = SendOptions()
            expected.deviceToken = token
            expected.payload = .inline(payload)
            change(&expected)
            XCTAssertEqual(parse(["--device-token", token] + extra + [payload]), expected, "\(extra)")
            // Options may also follow the payload.
            XCTAssertEqual(parse([payload, "--device-token", token] + extra), expected, "\(extra)")
        }
    }

    func testPayloadSources() {
        XCTAssertEqual(parse(["--device-token", token, "@payload.json"])?.payload, .file("payload.json"))
        XCTAssertEqual(parse(["--device-token", token, "@-"])?.payload, .standardInput)
        XCTAssertEqual(parse(["--device-token", token, "--", "-1"])?.payload, .inline("-1"))
    }

    func testHelp() throws {
        for arguments in [["--help"], ["-h"], ["--device-token", token, "--bogus", "--help"]] {
            guard case .help(let text) = try SendArgumentParser.parse(arguments) else { return XCTFail("\(arguments)") }
            XCTAssertTrue(text.hasPrefix("Usage: mock-apns send"))
            for option in [
                "--url", "--device-token", "--topic", "--push-type", "--priority", "--expiration",
                "--collapse-id", "--apns-id", "--header", "--authorization", "--cert", "--cert-key",
                "--cacert", "--insecure", "--count", "--concurrency", "--timeout",
            ] {
                XCTAssertTrue(text.contains(option + " "), option)
            }
        }
    }

    func testUsageErrors() {
        let minimal = ["--device-token", token]
        let table: [([String], String)] = [
            ([payload], "missing --device-token TOKEN (the device to notify)"),
            (minimal, #"missing the payload: give the JSON, @FILE or @- (e.g. '{"aps":{"alert":"Hello"}}')"#),
            (minimal + ["{", "}"], "expected one payload argument, got 2: '{', '}' (quote the JSON)"),
            (minimal + ["@"], "the payload '@' names no file: use @FILE or @-"),
            (minimal + ["--topc", "x", payload], "unknown option '--topc' (did you mean '--topic'?)"),
            (minimal + ["--frobnicate", payload], "unknown option '--frobnicate'"),
            (minimal + ["-x", payload], "unknown option '-x'"),
            (minimal + ["--topic", "a", "--topic", "b", payload], "--topic is given more than once"),
            (minimal + [payload, "--topic"], "--topic needs a value (TOPIC)"),
            (minimal + ["--topic", "--count", "3", payload], "--topic needs a value (TOPIC)"),
            (minimal + ["--topic=", payload], "--topic: the value is empty"),
            (minimal + ["--insecure=yes", payload], "--insecure takes no value"),
            (["--device-token", "", payload], "--device-token: the value is empty"),
            (
                ["--device-token", "ab/cd", payload],
                "--device-token: '/' cannot appear in the request path /3/device/TOKEN"
            ),
            (
                ["--device-token", "ab cd", payload],
                "--device-token: ' ' cannot appear in the request path /3/device/TOKEN"
            ),
            (minimal + ["--priority", "high", payload], "--priority: expected an integer, got 'high'"),
            (
                minimal + ["--expiration", "-1", payload],
                "--expiration: expected an integer from 0 to 4294967295, got '-1'"
            ),
            (minimal + ["--count", "0", payload], "--count: expected an integer from 1 to 1000000, got '0'"),
            (minimal + ["--count", "ten", payload], "--count: expected an integer from 1 to 1000000, got 'ten'"),
            (
                minimal + ["--concurrency", "1001", payload],
                "--concurrency: expected an integer from 1 to 1000, got '1001'"
            ),
            (
                minimal + ["--timeout", "0", payload],
                "--timeout: expected seconds greater than 0 (at most 86400), got '0'"
            ),
            (
                minimal + ["--timeout", "soon", payload],
                "--timeout: expected seconds greater than 0 (at most 86400), got 'soon'"
            ),
            (minimal + ["--header", "novalue", payload], "--header: expected 'NAME: VALUE', got 'novalue'"),
            (minimal + ["--header", ": x", payload], "--header: expected 'NAME: VALUE', got ': x'"),
            (
                minimal + ["--header", "bad name: x", payload],
                "--header: 'bad name' is not a valid header name (in 'bad name: x')"
            ),
            (
                minimal + ["--url", "localhost:2197", payload],
                "--url: 'localhost:2197': expected https://HOST[:PORT] or http://HOST[:PORT]"
            ),
            (
                minimal + ["--url", "https://localhost/3/device", payload],
                "--url: 'https://localhost/3/device': expected no path, query or fragment after the host and port"
            ),
            (
                minimal + ["--cert-key", "key.pem", payload],
                "--cert-key needs --cert (the client certificate it belongs to)"
            ),
            (
                minimal + ["--insecure", "--cacert", "ca.pem", payload],
                "--insecure and --cacert contradict each other: give one"
            ),
            (
                minimal + ["--url", "http://localhost:8080", "--cacert", "ca.pem", payload],
                "--cacert needs an https:// URL; http://localhost:8080 is cleartext"
            ),
            (
                minimal + ["--url", "http://localhost:8080", "--insecure", payload],
                "--insecure needs an https:// URL; http://localhost:8080 is cleartext"
            ),
        ]
        for (arguments, message) in table {
            XCTAssertThrowsError(try SendArgumentParser.parse(arguments), "\(arguments)") { error in
                XCTAssertEqual((error as? SendUsageError)?.message, message, "\(arguments)")
            }
        }
    }

    func testUsageErrorsExitWithTwoAndSayWhy() {
        var errors: [String] = []
        var lines: [String] = []
        let output = SendOutput(standardOutput: { lines.append($0) }, standardError: { errors.append($0) })
        XCTAssertEqual(SendCommand.run(["--count", "x", payload], output: output), 2)
        XCTAssertEqual(
            errors,
            [
                "mock-apns send: --count: expected an integer from 1 to 1000000, got 'x'\n"
                    + "Run 'mock-apns send --help' for usage."
            ])
        XCTAssertEqual(lines, [])
        XCTAssertEqual(SendCommand.run(["--help"], output: output), 0)
        XCTAssertEqual(lines.count, 1)
    }
}
