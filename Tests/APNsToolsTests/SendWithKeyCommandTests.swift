import APNsAuth
import APNsTools
import HTTP2Client
import XCTest

/// `mock-apns send --key FILE --key-id ID --team-id ID`: the token is signed into the
/// authorization header, and the trio's usage errors.
final class SendWithKeyCommandTests: XCTestCase {
    private let deviceToken = "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad"
    private let payload = #"{"aps":{"alert":"Hello"}}"#
    private var trio: [String] {
        ["--key", ToolFixtures.keyPath(), "--key-id", ToolFixtures.keyID, "--team-id", ToolFixtures.teamID]
    }
    private var minimal: [String] { ["--device-token", deviceToken, payload] }

    private func options(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws
        -> SendOptions
    {
        guard case .send(let options) = try SendWithKeyCommand.parse(arguments, issuedAt: ToolFixtures.issuedAt) else {
            XCTFail("expected .send", file: file, line: line)
            throw SendUsageError("not .send")
        }
        return options
    }

    func testTheKeyTrioSignsABearerToken() throws {
        for arguments in [
            minimal + trio, trio + minimal,
            [
                "--key=\(ToolFixtures.keyPath())", "--key-id=\(ToolFixtures.keyID)",
                "--team-id=\(ToolFixtures.teamID)",
            ] + minimal,
        ] {
            let signed = try options(arguments)
            XCTAssertNil(signed.providerKey, "signed, so nothing is left to sign")
            let authorization = try XCTUnwrap(signed.authorization)
            XCTAssertTrue(authorization.hasPrefix("bearer "), authorization)
            let token = try ToolFixtures.verifiedToken(authorization)
            XCTAssertEqual(token.keyID, ToolFixtures.keyID)
            XCTAssertEqual(token.teamID, ToolFixtures.teamID)
            XCTAssertEqual(token.issuedAt, Double(ToolFixtures.issuedAt))
            // Everything else is parsed exactly as without the trio.
            var expected = try options(minimal)
            expected.authorization = authorization
            XCTAssertEqual(signed, expected)
        }
    }

    func testTheParserAloneRecordsTheTrioUnsigned() throws {
        guard
            case .send(let options) = try SendArgumentParser.parse(
                minimal + ["--key", "k.p8", "--key-id", "K", "--team-id", "T"])
        else {
            return XCTFail("expected .send")
        }
        XCTAssertEqual(options.providerKey, SendProviderKey(path: "k.p8", keyID: "K", teamID: "T"))
        XCTAssertNil(options.authorization)
    }

    func testWithoutTheTrioNothingIsSigned() throws {
        XCTAssertNil(try options(minimal).authorization)
        XCTAssertEqual(try options(minimal + ["--authorization", "bearer a.b.c"]).authorization, "bearer a.b.c")
        XCTAssertEqual(
            try SendWithKeyCommand.parse(["--help"] + trio, issuedAt: 0), try SendArgumentParser.parse(["--help"]))
    }

    func testTrioUsageErrors() {
        let key = ToolFixtures.keyPath()
        let needs = "a provider token needs --key FILE --key-id ID --team-id ID"
        let table: [([String], String)] = [
            (["--key", key], "missing --key-id and --team-id: \(needs)"),
            (["--key", key, "--key-id", "K"], "missing --team-id: \(needs)"),
            (["--key", key, "--team-id", "T"], "missing --key-id: \(needs)"),
            (["--key-id", "K", "--team-id", "T"], "missing --key: \(needs)"),
            (["--team-id", "T"], "missing --key and --key-id: \(needs)"),
            (
                trio + ["--authorization", "bearer a.b.c"],
                "--key and --authorization both set the authorization header: give one"
            ),
            (["--key=", "--key-id", "K", "--team-id", "T"], "--key: the value is empty"),
            (["--key", key, "--key-id", "", "--team-id", "T"], "--key-id: the value is empty"),
            (trio + ["--team-id", "T2"], "--team-id is given more than once"),
            (["--key", "--key-id", "K", "--team-id", "T"], "--key needs a value (FILE)"),
            (["--key-ids", "K"], "unknown option '--key-ids' (did you mean '--key-id'?)"),
            (
                ["--key", "/nonexistent/AuthKey_X.p8", "--key-id", "K", "--team-id", "T"],
                "--key: cannot read /nonexistent/AuthKey_X.p8: No such file or directory"
            ),
            (
                ["--key", ToolFixtures.path("AuthKey_TEAMUNI001.pub.pem"), "--key-id", "K", "--team-id", "T"],
                "--key: \(ToolFixtures.path("AuthKey_TEAMUNI001.pub.pem")) is a public key (PEM PUBLIC KEY); "
                    + "signing needs the private key: the .p8 auth key file (PEM PRIVATE KEY)"
            ),
        ]
        for (extra, message) in table {
            let output = CollectedOutput()
            XCTAssertEqual(SendWithKeyCommand.run(minimal + extra, output: output.output), 2, "\(extra)")
            XCTAssertEqual(output.lines, [], "\(extra)")
            XCTAssertEqual(
                output.errors, ["mock-apns send: \(message)\nRun 'mock-apns send --help' for usage."], "\(extra)")
        }
    }

    func testAFileThatIsNoKeyExitsTwo() {
        let file = ToolFixtures.path("keys.json")
        let output = CollectedOutput()
        XCTAssertEqual(
            SendWithKeyCommand.run(
                minimal + ["--key", file, "--key-id", "K", "--team-id", "T"],
                output: output.output), 2)
        let error = output.errors.joined()
        XCTAssertTrue(error.hasPrefix("mock-apns send: --key: not an APNs auth key (EC P-256 PEM): \(file)"), error)
    }

    func testSigningHappensBeforeConnecting() {
        // Port 1 refuses: the run gets past signing (a key error would exit 2) to the connection.
        let output = CollectedOutput()
        let status = SendWithKeyCommand.run(
            ["--url", "http://127.0.0.1:1"] + trio + minimal, output: output.output,
            now: { ToolFixtures.issuedAt })
        XCTAssertEqual(status, 1, "\(output.errors)")
        XCTAssertTrue(
            output.errors.first?.hasPrefix("mock-apns send: cannot connect to http://127.0.0.1:1") ?? false,
            "\(output.errors)")
    }

    func testPlainSendCommandRefusesAnUnsignedKey() {
        // HTTP2Client alone cannot sign; it must not send without the token the user asked for.
        let output = CollectedOutput()
        XCTAssertEqual(SendCommand.run(["--url", "http://127.0.0.1:1"] + trio + minimal, output: output.output), 2)
        XCTAssertEqual(
            output.errors,
            [
                "mock-apns send: --key needs the provider-token signer of the mock-apns executable "
                    + "(run 'mock-apns send'); or give --authorization 'bearer <JWT>' from 'mock-apns jwt'\n"
                    + "Run 'mock-apns send --help' for usage."
            ])
    }

    func testHelpListsTheTrio() {
        let output = CollectedOutput()
        XCTAssertEqual(SendWithKeyCommand.run(["--help"], output: output.output), 0)
        let text = output.lines.joined()
        XCTAssertTrue(text.hasPrefix("Usage: mock-apns send"))
        for option in ["--key FILE ", "--key-id ID ", "--team-id ID ", "--authorization VALUE "] {
            XCTAssertTrue(text.contains(option), option)
        }
    }
}
