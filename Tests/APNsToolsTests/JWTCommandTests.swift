import APNsAuth
import APNsTools
import HTTP2Client
import XCTest

/// `mock-apns jwt`: the token it prints, and every usage error.
final class JWTCommandTests: XCTestCase {
    private let key = ToolFixtures.keyPath()
    private let keyID = ToolFixtures.keyID
    private let teamID = ToolFixtures.teamID

    private func run(_ arguments: [String], now: Int64 = 1_700_000_000) -> (status: Int32, output: CollectedOutput) {
        let collected = CollectedOutput()
        let status = JWTCommand.run(arguments, output: collected.output, now: { now })
        return (status, collected)
    }

    func testPrintsAnES256TokenWithTheGivenClaims() throws {
        let (status, output) = run(["--key", key, "--key-id", keyID, "--team-id", teamID, "--issued-at", "1800000000"])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(output.errors, [])
        XCTAssertEqual(output.lines.count, 1)
        let jwt = try XCTUnwrap(output.lines.first)
        XCTAssertFalse(jwt.contains("bearer") || jwt.contains("\n") || jwt.contains(" "), jwt)
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        XCTAssertEqual(parts.count, 3)
        let header = try ToolFixtures.jsonObject(parts[0])
        XCTAssertEqual(header.count, 2, "\(header)")
        XCTAssertEqual(header["alg"] as? String, "ES256")
        XCTAssertEqual(header["kid"] as? String, keyID)
        let claims = try ToolFixtures.jsonObject(parts[1])
        XCTAssertEqual(claims.count, 2, "\(claims)")
        XCTAssertEqual(claims["iss"] as? String, teamID)
        XCTAssertEqual((claims["iat"] as? NSNumber)?.int64Value, 1_800_000_000)

        let token = try ToolFixtures.verifiedToken("bearer " + jwt)
        XCTAssertEqual(token.keyID, keyID)
        XCTAssertEqual(token.teamID, teamID)
        XCTAssertEqual(token.issuedAt, 1_800_000_000)
        XCTAssertEqual(token.signature.count, ES256.rawSignatureSize)
    }

    func testTheTokenPassesTheGatewaysAuthenticatorKeyStore() throws {
        // The same key loaded the way the gateway loads it (keys.json) verifies the signature.
        let (status, output) = run(["--key=\(key)", "--key-id=\(keyID)", "--team-id=\(teamID)"])
        XCTAssertEqual(status, 0)
        let token = try ToolFixtures.verifiedToken("bearer " + (output.lines.first ?? ""))
        let store = try KeyStore(manifestAt: ToolFixtures.path("keys.json"))
        let configured = try XCTUnwrap(store[keyID])
        XCTAssertTrue(ES256.verify(signature: token.signature, message: token.signingInput, key: configured.publicKey))
    }

    func testIssuedAtDefaultsToNow() throws {
        let (status, output) = run(["--key", key, "--key-id", keyID, "--team-id", teamID], now: 1_712_345_678)
        XCTAssertEqual(status, 0)
        XCTAssertEqual(try ToolFixtures.verifiedToken("bearer " + (output.lines.first ?? "")).issuedAt, 1_712_345_678)
        XCTAssertEqual(APNsTools.now(), Int64(Date().timeIntervalSince1970), accuracy: 2)
    }

    func testIssuedAtTakesAnyInteger() throws {
        for (text, seconds) in [("0", 0.0), ("-5", -5.0), ("4102444800", 4_102_444_800.0)] {
            let (status, output) = run(["--key", key, "--key-id", keyID, "--team-id", teamID, "--issued-at", text])
            XCTAssertEqual(status, 0, text)
            XCTAssertEqual(
                try ToolFixtures.verifiedToken("bearer " + (output.lines.first ?? "")).issuedAt, seconds, text)
        }
    }

    func testEachKeySignsWithItsOwnKey() throws {
        // A token from another key does not verify with TEAMUNI001's public key.
        let (_, output) = run([
            "--key", ToolFixtures.keyPath("OTHERTEAM1"), "--key-id", "OTHERTEAM1",
            "--team-id", "TEAM000002",
        ])
        guard
            case .success(let token) = ProviderTokenParser.parse(authorization: "bearer " + (output.lines.first ?? ""))
        else {
            return XCTFail("\(output.lines)")
        }
        XCTAssertEqual(token.keyID, "OTHERTEAM1")
        XCTAssertFalse(
            ES256.verify(signature: token.signature, message: token.signingInput, key: try ToolFixtures.publicKey()))
    }

    func testHelp() {
        for arguments in [["--help"], ["-h"], ["--key", "--help"], ["--bogus", "-h"]] {
            let (status, output) = run(arguments)
            XCTAssertEqual(status, 0, "\(arguments)")
            XCTAssertEqual(output.errors, [])
            let text = output.lines.joined()
            XCTAssertTrue(
                text.hasPrefix("Usage: mock-apns jwt --key FILE --key-id ID --team-id ID [--issued-at SECONDS]"))
            for option in ["--key ", "--key-id ", "--team-id ", "--issued-at ", "--help"] {
                XCTAssertTrue(text.contains(option), option)
            }
        }
        guard case .help(let text) = try? JWTArgumentParser.parse(["-h"]) else { return XCTFail("no help") }
        for line in text.split(separator: "\n") {
            XCTAssertLessThanOrEqual(line.count, 80, "too wide: \(line)")
        }
    }

    func testParsesEveryOption() throws {
        let parsed = try JWTArgumentParser.parse(["--issued-at=-1", "--team-id", "T", "--key-id=K", "--key", "k.p8"])
        XCTAssertEqual(parsed, .sign(JWTOptions(keyPath: "k.p8", keyID: "K", teamID: "T", issuedAt: -1)))
        XCTAssertEqual(
            try JWTArgumentParser.parse(["--key", "k.p8", "--key-id", "K", "--team-id", "T"]),
            .sign(JWTOptions(keyPath: "k.p8", keyID: "K", teamID: "T")))
    }

    func testUsageErrorsExitTwoAndNameTheFlag() {
        let full = ["--key", key, "--key-id", keyID, "--team-id", teamID]
        let table: [([String], String)] = [
            ([], "missing --key and --key-id and --team-id: a token needs --key FILE --key-id ID --team-id ID"),
            (["--key", key], "missing --key-id and --team-id: a token needs --key FILE --key-id ID --team-id ID"),
            (
                ["--key", key, "--key-id", keyID],
                "missing --team-id: a token needs --key FILE --key-id ID --team-id ID"
            ),
            (
                ["--key-id", keyID, "--team-id", teamID],
                "missing --key: a token needs --key FILE --key-id ID --team-id ID"
            ),
            (
                full + ["--issued-at", "soon"],
                "--issued-at: expected whole seconds since 1970 (an integer), got 'soon'"
            ),
            (full + ["--issued-at", "1.5"], "--issued-at: expected whole seconds since 1970 (an integer), got '1.5'"),
            (
                full + ["--issued-at", "99999999999999999999"],
                "--issued-at: expected whole seconds since 1970 (an integer), got '99999999999999999999'"
            ),
            (full + ["--issued-at"], "--issued-at needs a value (SECONDS)"),
            (["--key", "--key-id", keyID, "--team-id", teamID], "--key needs a value (FILE)"),
            (full + ["--issued-at="], "--issued-at: the value is empty"),
            (["--key", key, "--key-id=", "--team-id", teamID], "--key-id: the value is empty"),
            (full + ["--key-id", "OTHER"], "--key-id is given more than once"),
            (full + ["--kid", "X"], "unknown option '--kid' (jwt takes --key, --key-id, --team-id, --issued-at)"),
            (full + ["-k"], "unexpected argument '-k': jwt takes only options"),
            (full + ["extra"], "unexpected argument 'extra': jwt takes only options"),
            (
                ["--key", "/nonexistent/AuthKey_X.p8", "--key-id", keyID, "--team-id", teamID],
                "--key: cannot read /nonexistent/AuthKey_X.p8: No such file or directory"
            ),
            (
                ["--key", ToolFixtures.path("AuthKey_TEAMUNI001.pub.pem"), "--key-id", keyID, "--team-id", teamID],
                "--key: \(ToolFixtures.path("AuthKey_TEAMUNI001.pub.pem")) is a public key (PEM PUBLIC KEY); "
                    + "signing needs the private key: the .p8 auth key file (PEM PRIVATE KEY)"
            ),
        ]
        for (arguments, message) in table {
            let (status, output) = run(arguments)
            XCTAssertEqual(status, 2, "\(arguments)")
            XCTAssertEqual(output.lines, [], "\(arguments)")
            XCTAssertEqual(
                output.errors, ["mock-apns jwt: \(message)\nRun 'mock-apns jwt --help' for usage."], "\(arguments)")
        }
    }

    func testAFileThatIsNoKeyExitsTwoNamingIt() {
        for file in [ToolFixtures.path("keys.json"), ToolFixtures.path("client-sandbox-single.pem")] {
            let (status, output) = run(["--key", file, "--key-id", keyID, "--team-id", teamID])
            XCTAssertEqual(status, 2, file)
            XCTAssertEqual(output.lines, [])
            let error = output.errors.joined()
            XCTAssertTrue(error.hasPrefix("mock-apns jwt: --key: not an APNs auth key (EC P-256 PEM): \(file)"), error)
        }
    }

    func testToolsDispatchOnlyTheirCommands() {
        XCTAssertNil(APNsTools.main(command: "serve", arguments: []))
        XCTAssertNil(APNsTools.main(command: "--listen", arguments: ["127.0.0.1:0"]))
        XCTAssertNil(APNsTools.main(command: "JWT", arguments: []))
    }
}
