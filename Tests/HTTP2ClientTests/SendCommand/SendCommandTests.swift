import Foundation
import HTTP2Client
import XCTest

/// `mock-apns send` end to end: arguments in, lines and exit status out, against nghttpd and
/// the scripted server.
final class SendCommandTests: XCTestCase {
    private var nghttpd: ExternalServer?
    private var scripted: ScriptedHTTP2Server?
    private var lines: [String] = []
    private var errors: [String] = []
    private let payload = #"{"aps":{"alert":"Hello"}}"#

    override func tearDown() {
        nghttpd?.stop()
        scripted?.stop()
        nghttpd = nil
        scripted = nil
        super.tearDown()
    }

    private func run(_ arguments: [String]) -> Int32 {
        lines = []
        errors = []
        let output = SendOutput(
            standardOutput: { [unowned self] in lines.append($0) },
            standardError: { [unowned self] in errors.append($0) })
        return SendCommand.run(arguments, output: output)
    }

    private func startNghttpd() throws -> Int {
        let server = try ExternalServer.nghttpd(tls: true)
        nghttpd = server
        try server.writeFile("/3/device/abc", "ok")
        return server.port
    }

    func testOneNotificationAnswered200ExitsZero() throws {
        let port = try startNghttpd()
        XCTAssertEqual(
            run([
                "--url", "https://localhost:\(port)", "--cacert", TestFixtures.caPath,
                "--device-token", "abc", "--topic", "com.example", "--push-type", "alert", payload,
            ]), 0)
        XCTAssertEqual(lines, ["status 200"])
        XCTAssertEqual(errors, [])
    }

    func testA404ExitsOneAndShowsTheBody() throws {
        let port = try startNghttpd()
        XCTAssertEqual(
            run(["--url", "https://localhost:\(port)", "--insecure", "--device-token", "missing", payload]), 1)
        XCTAssertEqual(lines.first, "status 404")
        XCTAssertTrue(lines.count == 2 && lines[1].hasPrefix("body: "), "\(lines)")
    }

    func testCountPrintsASummary() throws {
        let port = try startNghttpd()
        XCTAssertEqual(
            run([
                "--url", "https://127.0.0.1:\(port)", "--cacert", TestFixtures.caPath, "--device-token", "abc",
                "--count", "100", "--concurrency", "10", payload,
            ]), 0)
        XCTAssertEqual(lines.count, 4, "\(lines)")
        XCTAssertTrue(
            lines[0].hasPrefix("sent 100 requests to https://127.0.0.1:\(port) over 1 connection (TLSv1."), lines[0])
        XCTAssertTrue(lines[0].hasSuffix("ms), concurrency 10"), lines[0])
        XCTAssertEqual(lines[1], "status 200: 100")
        XCTAssertTrue(lines[2].hasPrefix("elapsed ") && lines[2].hasSuffix(" requests/s"), lines[2])
        XCTAssertTrue(lines[3].hasPrefix("latency p50 ") && lines[3].contains(" ms, p99 "), lines[3])
    }

    func testAPNsErrorAnswer() throws {
        let server = try ScriptedHTTP2Server { stream, _ in
            .init(
                bytes: HTTP2Frames.response(
                    stream, status: 410, apnsID: "8FE746A6-5B20-4E85-9E35-7B9B3E6C4F0E",
                    body: #"{"reason":"Unregistered","timestamp":1700000000000}"#))
        }
        scripted = server
        let file = TestFixtures.temporaryDirectory() + "/payload.json"
        try Data(payload.utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
        XCTAssertEqual(run(["--url", "http://127.0.0.1:\(server.port)", "--device-token", "abc", "@" + file]), 1)
        XCTAssertEqual(
            lines,
            [
                "status 410", "apns-id: 8FE746A6-5B20-4E85-9E35-7B9B3E6C4F0E", "reason: Unregistered",
                "timestamp: 1700000000000 (2023-11-14T22:13:20.000Z)",
            ])
        XCTAssertEqual(server.bodies.withLock { $0[1] }, Array(payload.utf8), "the file's bytes were the payload")
    }

    func testGoAwayIsReported() throws {
        let server = try ScriptedHTTP2Server { stream, _ in
            .init(bytes: HTTP2Frames.goAway(lastStream: 0, code: 11, debug: "slow down"), close: true)
        }
        scripted = server
        XCTAssertEqual(run(["--url", "http://127.0.0.1:\(server.port)", "--device-token", "abc", payload]), 1)
        XCTAssertEqual(
            lines,
            [
                "no response: not processed: the server sent GOAWAY",
                #"goaway: ENHANCE_YOUR_CALM (0xb), last stream 0, debug data "slow down""#,
            ])
    }

    func testConnectionRefusedExitsOne() {
        let port = TestFixtures.freePort()
        XCTAssertEqual(run(["--url", "http://127.0.0.1:\(port)", "--device-token", "abc", payload]), 1)
        XCTAssertEqual(
            errors,
            ["mock-apns send: cannot connect to http://127.0.0.1:\(port): connection refused by 127.0.0.1:\(port)"])
    }

    func testVerificationFailureExitsOneWithOpenSSLsReason() throws {
        let port = try startNghttpd()
        XCTAssertEqual(run(["--url", "https://localhost:\(port)", "--device-token", "abc", payload]), 1)
        XCTAssertEqual(errors.count, 1)
        XCTAssertTrue(
            errors[0].hasPrefix(
                "mock-apns send: cannot connect to https://localhost:\(port): "
                    + "TLS certificate verification failed: "), errors[0])
        XCTAssertTrue(
            errors[0].hasSuffix(
                ": unable to get local issuer certificate (trust the server's CA with "
                    + "--cacert FILE, e.g. tls/ca.pem for MockAPNs's test certificate, "
                    + "or skip verification with --insecure)"), errors[0])
    }

    func testConnectionErrorsNameTheFlagThatFixesThem() {
        let table: [(HTTP2ClientError, String)] = [
            (
                .tlsVerificationFailed("unable to get local issuer certificate"),
                "TLS certificate verification failed: unable to get local issuer certificate (trust the server's CA "
                    + "with --cacert FILE, e.g. tls/ca.pem for MockAPNs's test certificate, or skip verification with --insecure)"
            ),
            (
                .tlsVerificationFailed("IP address mismatch"),
                "TLS certificate verification failed: IP address mismatch (the server's certificate does not name "
                    + "this host; connect to a name or address it lists, e.g. localhost or 127.0.0.1 for MockAPNs's test "
                    + "certificate, or skip verification with --insecure)"
            ),
            (
                .clientKeyMissing(path: "client.pem", inCertificateFile: true),
                "the certificate file client.pem holds no private key: pass the key with --cert-key FILE"
            ),
            (
                .clientKeyMissing(path: "key.pem", inCertificateFile: false),
                "the --cert-key file key.pem holds no private key (it takes the PEM private key of the --cert certificate)"
            ),
            (.connectionRefused(host: "127.0.0.1", port: 1), "connection refused by 127.0.0.1:1"),
        ]
        for (error, text) in table {
            XCTAssertEqual(SendCommand.explain(error), text)
        }
    }

    func testACertificateWithoutItsKeyAsksForCertKey() throws {
        let port = try startNghttpd()
        let certificate = TestFixtures.serverCertificatePath
        XCTAssertEqual(
            run([
                "--url", "https://localhost:\(port)", "--cacert", TestFixtures.caPath,
                "--cert", certificate, "--device-token", "abc", payload,
            ]), 1)
        XCTAssertEqual(
            errors,
            [
                "mock-apns send: cannot connect to https://localhost:\(port): the certificate file "
                    + "\(certificate) holds no private key: pass the key with --cert-key FILE"
            ])
    }

    func testUnreadableFilesAreUsageErrors() {
        XCTAssertEqual(run(["--cacert", "/nonexistent/ca.pem", "--device-token", "abc", payload]), 2)
        XCTAssertEqual(
            errors,
            [
                "mock-apns send: --cacert: cannot read /nonexistent/ca.pem: No such file or directory\n"
                    + "Run 'mock-apns send --help' for usage."
            ])
        XCTAssertEqual(run(["--device-token", "abc", "@/nonexistent/payload.json"]), 2)
        XCTAssertEqual(
            errors,
            [
                "mock-apns send: cannot read the payload file /nonexistent/payload.json: No such file or directory\n"
                    + "Run 'mock-apns send --help' for usage."
            ])
    }
}
