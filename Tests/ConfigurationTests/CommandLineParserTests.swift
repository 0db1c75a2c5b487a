import Foundation
import XCTest

@testable import APNsCore
@testable import Configuration

final class CommandLineParserTests: XCTestCase {
    private func serveConfiguration(_ args: [String], line: UInt = #line) -> Configuration? {
        do {
            guard case .serve(let configuration) = try CommandLineParser.parse(args) else {
                XCTFail("\(args) is not a serve command", line: line)
                return nil
            }
            return configuration
        } catch {
            XCTFail("\(args): \(error)", line: line)
            return nil
        }
    }

    // MARK: Commands

    func testNoArgumentsServesTheDefaults() {
        XCTAssertEqual(try CommandLineParser.parse([]), .serve(Configuration()))
        XCTAssertEqual(try CommandLineParser.parse(["serve"]), .serve(Configuration()))
    }

    func testHelpWinsWherever() throws {
        for args in [
            ["--help"], ["-h"], ["help"], ["serve", "--help"], ["--workers", "9", "-h"], ["--bogus", "--help"],
            ["--version", "--help"],
        ] {
            guard case .help(let text) = try CommandLineParser.parse(args) else {
                return XCTFail("\(args) is not help")
            }
            XCTAssertTrue(text.hasPrefix("mock-apns 0.1.0"), "\(args)")
        }
    }

    func testVersion() throws {
        XCTAssertEqual(MockAPNsVersion.string, "0.1.0")
        for args in [["--version"], ["version"], ["serve", "--version"]] {
            XCTAssertEqual(try CommandLineParser.parse(args), .version("mock-apns 0.1.0"), "\(args)")
        }
    }

    // MARK: Options

    func testEachOptionSetsItsValue() {
        // Each row: arguments (as --flag value), and the change to the defaults they make.
        let rows: [([String], (inout Configuration) -> Void, UInt)] = [
            (
                ["--listen", "0.0.0.0:443"],
                {
                    $0.listeners[0].host = "0.0.0.0"
                    $0.listeners[0].port = 443
                }, #line
            ),
            (
                ["--listen", "[::1]:0"],
                {
                    $0.listeners[0].host = "::1"
                    $0.listeners[0].port = 0
                }, #line
            ),
            (["--environment", "production"], { $0.listeners[0].environment = .production }, #line),
            (["--plaintext"], { $0.listeners[0].plaintext = true }, #line),
            (
                ["--tls-cert", "c.pem", "--tls-key", "k.pem"],
                {
                    $0.listeners[0].tlsCertificatePath = "c.pem"
                    $0.listeners[0].tlsKeyPath = "k.pem"
                }, #line
            ),
            (["--auth", "strict"], { $0.listeners[0].auth = .strict }, #line),
            (["--auth", "none"], { $0.listeners[0].auth = AuthModeSetting.none }, #line),
            (["--auth", "permissive"], { _ in }, #line),
            (["--client-ca", "ca.pem"], { $0.listeners[0].clientCAPaths = ["ca.pem"] }, #line),
            (
                ["--client-ca", "ca.pem", "--tls-cert", "c.pem", "--tls-key", "k.pem"],
                {
                    $0.listeners[0].clientCAPaths = ["ca.pem"]
                    $0.listeners[0].tlsCertificatePath = "c.pem"
                    $0.listeners[0].tlsKeyPath = "k.pem"
                },
                #line
            ),
            (["--keys", "auth/keys.json"], { $0.keysManifestPath = "auth/keys.json" }, #line),
            (["--ready-file", "/tmp/ready.json"], { $0.readyFilePath = "/tmp/ready.json" }, #line),
            (["--journal", "/tmp/journal.ndjson"], { $0.journalPath = "/tmp/journal.ndjson" }, #line),
            (["--journal-sync", "always"], { $0.journalSync = .always }, #line),
            (["--journal-sync=never"], { $0.journalSync = .never }, #line),
            (["--clock-offset", "4000"], { $0.clockOffsetSeconds = 4000 }, #line),
            (["--clock-offset", "-4000"], { $0.clockOffsetSeconds = -4000 }, #line),
            (
                ["--clock-offset", "-0.5", "--workers", "1"],
                {
                    $0.clockOffsetSeconds = -0.5
                    $0.workers = 1
                }, #line
            ),
            (["--clock-offset", "0"], { _ in }, #line),
            (["--control", "127.0.0.1:0"], { $0.control = ControlConfiguration(port: 0) }, #line),
            (["--control", "[::1]:9999"], { $0.control = ControlConfiguration(host: "::1", port: 9999) }, #line),
            (["--control", "off"], { $0.control = nil }, #line),
            (["--max-records", "5"], { $0.maxRecords = 5 }, #line),
            (["--max-events", "3"], { $0.maxEvents = 3 }, #line),
            (["--max-fault-rules", "7"], { $0.maxFaultRules = 7 }, #line),
            (["--max-gateways", "0"], { $0.maxGateways = 0 }, #line),
            (["--gateway-max-records", "50"], { $0.gatewayMaxRecords = 50 }, #line),
            (["--control-idle-timeout", "9"], { $0.controlIdleTimeoutSeconds = 9 }, #line),
            (["--control-max-streams", "2"], { $0.controlMaxStreams = 2 }, #line),
            (["--control-stream-buffer", "70000"], { $0.controlStreamBufferBytes = 70000 }, #line),
            (["--registry", "closed"], { $0.validation.registry = .closed }, #line),
            (["--token-length", "64"], { $0.validation.tokenLength = 64 }, #line),
            (["--max-concurrent-streams", "1"], { $0.maxConcurrentStreams = 1 }, #line),
            (["--stream-profile", "apple-observed"], { $0.streamProfile = .appleObserved }, #line),
            (["--workers", "4"], { $0.workers = 4 }, #line),
            (["--drain-timeout", "0.25"], { $0.drainTimeoutSeconds = 0.25 }, #line),
            (["--log-level", "warning"], { $0.logLevel = .warning }, #line),
            (
                ["serve", "--workers", "2", "--log-level", "error"],
                {
                    $0.workers = 2
                    $0.logLevel = .error
                }, #line
            ),
        ]
        for (args, change, line) in rows {
            var expected = Configuration()
            change(&expected)
            XCTAssertEqual(serveConfiguration(args, line: line), expected, "\(args)", line: line)
            // The same options written --flag=value.
            var joined: [String] = []
            var index = 0
            while index < args.count {
                let takesValue =
                    index + 1 < args.count && !args[index + 1].hasPrefix("--") && args[index].hasPrefix("--")
                joined.append(takesValue ? "\(args[index])=\(args[index + 1])" : args[index])
                index += takesValue ? 2 : 1
            }
            XCTAssertEqual(serveConfiguration(joined, line: line), expected, "\(joined)", line: line)
        }
    }

    func testANegativeNumberAfterAnOptionIsItsValue() {
        // A single dash followed by a digit is a value; a following --option still means the value is missing.
        for args in [
            ["--clock-offset", "-4000"], ["--clock-offset=-4000"],
            ["--auth", "strict", "--clock-offset", "-4000", "--workers", "1"],
        ] {
            XCTAssertEqual(serveConfiguration(args)?.clockOffsetSeconds, -4000, "\(args)")
        }
        XCTAssertEqual(serveConfiguration(["--clock-offset", "-1e3"])?.clockOffsetSeconds, -1000)
        XCTAssertThrowsError(try CommandLineParser.parse(["--clock-offset", "--auth", "strict"])) { error in
            XCTAssertEqual((error as? CommandLineError)?.message, "option --clock-offset needs a value (SECONDS)")
        }
    }

    func testEveryOptionIsInTheHelpAndOnlyThose() throws {
        guard case .help(let help) = try CommandLineParser.parse(["--help"]) else { return XCTFail("no help") }
        for option in CommandLineParser.options {
            XCTAssertTrue(help.contains(option.name), "help lacks \(option.name)")
            if let value = option.value {
                XCTAssertTrue(help.contains("\(option.name) \(value)"), "help lacks \(option.name) \(value)")
            }
        }
        let words = help.split(whereSeparator: { " ,|=().;".contains($0) || $0.isNewline })
        let listed = Set(words.filter { $0.hasPrefix("-") && $0.count > 1 }.map(String.init))
        let known = Set(CommandLineParser.options.map(\.name))
        XCTAssertEqual(listed.subtracting(known), [], "help mentions options the parser does not know")
    }

    func testHelpIsCompleteAndFitsATerminal() throws {
        guard case .help(let help) = try CommandLineParser.parse(["--help"]) else { return XCTFail("no help") }
        let defaults = Configuration()
        for expected in [
            "USAGE", "mock-apns [serve] [OPTIONS]", "OPTIONS", "CONFIGURATION FILE", "EXAMPLES",
            "fixtures/mock-apns.example.json",
            "Default: \(defaults.listeners[0].address)", "Default: \(defaults.control!.address)",
            "Default: \(defaults.maxRecords)", "Default: \(defaults.maxEvents)",
            "Default: \(defaults.maxConcurrentStreams)",
            "Default: \(defaults.listeners[0].environment.rawValue)",
            "Default: \(defaults.validation.registry.rawValue)",
            "Default: \(defaults.streamProfile.rawValue)", "Default: \(defaults.workers)",
            "Default: \(defaults.logLevel.rawValue)", "Default: \(Int(defaults.drainTimeoutSeconds))",
            "Default: \(defaults.listeners[0].auth.rawValue)", "Default: \(Int(defaults.clockOffsetSeconds))",
            "none: no credential checks", "strict:", "mutual TLS",
            "may be\n                               negative. Default: 0.",
            "at\n                               most \(defaults.validation.maxTokenLength).", "--workers=2", "status 2",
        ] {
            XCTAssertTrue(help.contains(expected), "help lacks \(expected.debugDescription)")
        }
        for key in ConfigurationFile.topLevelKeys + ConfigurationFile.listenerKeys {
            XCTAssertTrue(help.contains(key), "help does not name the config key \(key)")
        }
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            XCTAssertLessThanOrEqual(line.count, 80, "too wide: \(line)")
        }
    }

    // MARK: Errors

    func testUsageErrorsSayWhatWasWrong() {
        let rows: [ErrorRow<[String]>] = [
            ErrorRow(["--max-record", "5"], "unknown option '--max-record' (did you mean '--max-records'?)"),
            ErrorRow(["--lisen", "x"], "unknown option '--lisen' (did you mean '--listen'?)"),
            ErrorRow(["--log-levle=debug"], "unknown option '--log-levle' (did you mean '--log-level'?)"),
            ErrorRow(["--bogus"], "unknown option '--bogus'"),
            ErrorRow(["--config"], "option --config needs a value (FILE)"),
            ErrorRow(["--config", "--plaintext"], "option --config needs a value (FILE)"),
            ErrorRow(["--config="], "option --config needs a value (FILE)"),
            ErrorRow(["--listen", ""], "option --listen needs a value (HOST:PORT)"),
            ErrorRow(["--plaintext=yes"], "option --plaintext takes no value"),
            ErrorRow(["--workers", "1", "--workers=2"], "option --workers given more than once"),
            ErrorRow(["extra"], "unknown command 'extra'; commands: serve, send, jwt, help, version"),
            ErrorRow(
                ["serv"], "unknown command 'serv' (did you mean 'serve'?); commands: serve, send, jwt, help, version"),
            ErrorRow(["serve", "extra"], "unexpected argument 'extra'; options start with --"),
            ErrorRow(["--workers", "2", "serve"], "unexpected argument 'serve'; options start with --"),
            ErrorRow(["-"], "unexpected argument '-'; options start with --"),
            ErrorRow(
                ["--listen", "localhost"],
                "--listen: expected HOST:PORT (IPv6 as [::1]:2197), got 'localhost': missing :PORT"),
            ErrorRow(
                ["--listen", "::1:2197"],
                "--listen: expected HOST:PORT (IPv6 as [::1]:2197), got '::1:2197': put IPv6 addresses in brackets, e.g. [::1]:2197"
            ),
            ErrorRow(
                ["--listen=127.0.0.1:99999"],
                "--listen: expected HOST:PORT (IPv6 as [::1]:2197), got '127.0.0.1:99999': the port must be an integer from 0 to 65535"
            ),
            ErrorRow(
                ["--control", "on"],
                "--control: expected HOST:PORT (IPv6 as [::1]:2197) or off, got 'on': missing :PORT"),
            ErrorRow(["--environment", "prod"], "--environment: expected one of sandbox, production, got 'prod'"),
            ErrorRow(
                ["--environment", "sandbx"],
                "--environment: expected one of sandbox, production, got 'sandbx' (did you mean 'sandbox'?)"),
            ErrorRow(["--tls-cert", "c.pem"], "--tls-cert needs --tls-key (give both or neither)"),
            ErrorRow(["--tls-key", "k.pem"], "--tls-key needs --tls-cert (give both or neither)"),
            ErrorRow(
                ["--plaintext", "--tls-cert", "c.pem", "--tls-key", "k.pem"],
                "--plaintext cannot be combined with --tls-cert and --tls-key"),
            ErrorRow(["--max-records", "0"], "--max-records: expected an integer from 1 to 10000000, got '0'"),
            ErrorRow(["--max-records", "ten"], "--max-records: expected an integer from 1 to 10000000, got 'ten'"),
            ErrorRow(["--max-events", "0"], "--max-events: expected an integer from 1 to 10000000, got '0'"),
            ErrorRow(["--registry", "half"], "--registry: expected one of open, closed, got 'half'"),
            ErrorRow(
                ["--token-length", "63"],
                "--token-length: expected an even integer from 2 to 200 (maxTokenLength), got '63'"),
            ErrorRow(
                ["--token-length", "0"],
                "--token-length: expected an even integer from 2 to 200 (maxTokenLength), got '0'"),
            ErrorRow(
                ["--max-concurrent-streams", "0"],
                "--max-concurrent-streams: expected an integer from 1 to 2147483647, got '0'"),
            ErrorRow(
                ["--stream-profile", "apple"], "--stream-profile: expected one of fixed, apple-observed, got 'apple'"),
            ErrorRow(["--workers", "-1"], "--workers: expected an integer from 0 to 1024, got '-1'"),
            ErrorRow(["--workers", "1.5"], "--workers: expected an integer from 0 to 1024, got '1.5'"),
            ErrorRow(
                ["--drain-timeout", "soon"], "--drain-timeout: expected a number of seconds from 0 to 3600, got 'soon'"),
            ErrorRow(
                ["--drain-timeout", "-1"], "--drain-timeout: expected a number of seconds from 0 to 3600, got '-1'"),
            ErrorRow(
                ["--drain-timeout", "inf"], "--drain-timeout: expected a number of seconds from 0 to 3600, got 'inf'"),
            ErrorRow(
                ["--log-level", "verbose"], "--log-level: expected one of error, warning, info, debug, got 'verbose'"),
            ErrorRow(
                ["--auth", "strickt"],
                "--auth: expected one of none, permissive, strict, got 'strickt' (did you mean 'strict'?)"),
            ErrorRow(["--auth", "jwt"], "--auth: expected one of none, permissive, strict, got 'jwt'"),
            ErrorRow(["--auth"], "option --auth needs a value (MODE)"),
            ErrorRow(["--client-ca", "--plaintext"], "option --client-ca needs a value (FILE)"),
            ErrorRow(["--client-ca", "a.pem", "--client-ca", "b.pem"], "option --client-ca given more than once"),
            ErrorRow(["--client-ca=a.pem", "--plaintext"], "--plaintext cannot be combined with --client-ca"),
            ErrorRow(["--keys="], "option --keys needs a value (FILE)"),
            ErrorRow(["--key", "k.json"], "unknown option '--key' (did you mean '--keys'?)"),
            ErrorRow(["--clock-offset", "--workers", "1"], "option --clock-offset needs a value (SECONDS)"),
            ErrorRow(
                ["--clock-offset", "soon"],
                "--clock-offset: expected a number of seconds within ±1e10 (negative moves the clock back), got 'soon'"),
            ErrorRow(
                ["--clock-offset", "-inf"],
                "--clock-offset: expected a number of seconds within ±1e10 (negative moves the clock back), got '-inf'"),
            ErrorRow(
                ["--clock-offset", "nan"],
                "--clock-offset: expected a number of seconds within ±1e10 (negative moves the clock back), got 'nan'"),
            ErrorRow(["--clock-ofset", "1"], "unknown option '--clock-ofset' (did you mean '--clock-offset'?)"),
            ErrorRow(["-4000"], "unknown option '-4000'"),
        ]
        assertCommandLineErrors(rows, suggestsHelp: true)
    }

    func testConfigurationErrorsDoNotPointAtHelp() {
        let rows: [ErrorRow<[String]>] = [
            ErrorRow(
                ["--listen", "127.0.0.1:8197"],
                "control: address 127.0.0.1:8197 conflicts with listeners[0] (127.0.0.1:8197)"),
            ErrorRow(
                ["--control", "0.0.0.0:2197"],
                "control: address 0.0.0.0:2197 conflicts with listeners[0] (127.0.0.1:2197)"),
            ErrorRow(["--config", "/nonexistent/mock-apns.json"], "/nonexistent/mock-apns.json: no such file"),
        ]
        assertCommandLineErrors(rows, suggestsHelp: false)
    }

    // MARK: With a configuration file

    func testOptionsOverrideTheFileAndKeepTheRest() throws {
        let directory = try makeTemporaryDirectory(self)
        let file = directory.appendingPathComponent("config.json")
        try Data(
            """
            {
              "listeners": [
                { "name": "dev", "port": 3000, "tls": { "certificate": "server.pem", "key": "server-key.pem" },
                  "auth": "strict", "clientCAs": ["client-ca.pem"] },
                { "name": "prod", "port": 3001, "environment": "production", "plaintext": true }
              ],
              "keys": "keys.json", "clockOffsetSeconds": 10,
              "control": null,
              "maxRecords": 10, "registry": "closed", "tokenLength": 16, "workers": 2, "logLevel": "debug",
              "devices": [ { "token": "0011223344556677" } ],
              "http2": { "maxConcurrentStreams": 50, "streamProfile": "apple-observed" },
              "drainTimeoutSeconds": 1
            }
            """.utf8
        ).write(to: file)
        let fromFile = try ConfigurationFile.load(path: file.path)

        // The file alone.
        XCTAssertEqual(serveConfiguration(["--config", file.path]), fromFile)
        XCTAssertEqual(fromFile.listeners[0].tlsCertificatePath, directory.appendingPathComponent("server.pem").path)
        XCTAssertEqual(fromFile.listeners[0].clientCAPaths, [directory.appendingPathComponent("client-ca.pem").path])
        XCTAssertEqual(fromFile.listeners[0].auth, .strict)
        XCTAssertEqual(fromFile.keysManifestPath, directory.appendingPathComponent("keys.json").path)
        XCTAssertEqual(fromFile.clockOffsetSeconds, 10)

        // Authentication flags override the file; --client-ca replaces the file's CAs, and
        // flag paths are kept as written (relative to the working directory).
        var authenticated = fromFile
        authenticated.listeners[0].auth = AuthModeSetting.none
        authenticated.listeners[0].clientCAPaths = ["other-ca.pem"]
        authenticated.keysManifestPath = "other-keys.json"
        authenticated.clockOffsetSeconds = -4000
        XCTAssertEqual(
            serveConfiguration([
                "--config", file.path, "--auth", "none", "--client-ca", "other-ca.pem",
                "--keys", "other-keys.json", "--clock-offset", "-4000",
            ]), authenticated)

        // Flags override; everything they do not name stays as the file says.
        var expected = fromFile
        expected.listeners[0].host = "::1"
        expected.listeners[0].port = 4000
        expected.listeners[0].environment = .production
        expected.listeners[0].plaintext = true
        expected.listeners[0].tlsCertificatePath = nil
        expected.listeners[0].tlsKeyPath = nil
        expected.listeners[0].clientCAPaths = []  // --plaintext drops the file's client CAs with its certificate
        expected.control = ControlConfiguration(port: 9000)
        expected.maxRecords = 20
        expected.validation.registry = .open
        expected.workers = 0
        expected.logLevel = .info
        expected.maxConcurrentStreams = 7
        expected.streamProfile = .fixed
        expected.drainTimeoutSeconds = 2
        XCTAssertEqual(
            serveConfiguration([
                "serve", "--config=\(file.path)", "--listen", "[::1]:4000", "--environment=production",
                "--plaintext", "--control", "127.0.0.1:9000", "--max-records", "20",
                "--registry", "open", "--workers", "0", "--log-level", "info",
                "--max-concurrent-streams", "7", "--stream-profile", "fixed",
                "--drain-timeout", "2",
            ]), expected)

        // TLS flags turn a plaintext first listener back to TLS; other listeners are untouched.
        var swapped = fromFile
        swapped.listeners = [fromFile.listeners[1], fromFile.listeners[0]]
        let reordered = directory.appendingPathComponent("reordered.json")
        try Data(
            #"{"listeners": [{"name": "prod", "port": 3001, "plaintext": true}, {"name": "dev", "port": 3000}], "control": null}"#
                .utf8
        )
        .write(to: reordered)
        let configuration = serveConfiguration([
            "--config", reordered.path, "--tls-cert", "/c.pem", "--tls-key", "/k.pem",
        ])
        XCTAssertEqual(configuration?.listeners[0].plaintext, false)
        XCTAssertEqual(configuration?.listeners[0].tlsCertificatePath, "/c.pem")
        XCTAssertEqual(configuration?.listeners[0].tlsKeyPath, "/k.pem")
        XCTAssertEqual(configuration?.listeners[1], ListenerConfiguration(name: "dev", port: 3000))

        // --client-ca on a listener the file makes plaintext is a configuration error.
        do {
            _ = try CommandLineParser.parse(["--config", reordered.path, "--client-ca", "ca.pem"])
            XCTFail("--client-ca passed on a plaintext listener")
        } catch {
            XCTAssertEqual(
                error.message,
                "listeners[0].clientCAs: a plaintext listener cannot ask for client certificates; remove the client CAs or turn plaintext off"
            )
            XCTAssertFalse(error.suggestsHelp)
        }

        // The file's devices are checked against a --token-length that does not fit them.
        do {
            _ = try CommandLineParser.parse(["--config", file.path, "--token-length", "64"])
            XCTFail("a 16-character device token passed --token-length 64")
        } catch {
            XCTAssertEqual(
                error.message, "devices[0].token: the token has 16 hex characters but tokenLength requires 64")
        }
    }

    func testFileErrorsComeThroughWithTheFileName() throws {
        let directory = try makeTemporaryDirectory(self)
        let file = directory.appendingPathComponent("typo.json")
        try Data(#"{"maxRecord": 10}"#.utf8).write(to: file)
        do {
            _ = try CommandLineParser.parse(["--config", file.path])
            XCTFail("a typo passed")
        } catch {
            XCTAssertTrue(
                error.message.hasPrefix(
                    #"\#(file.path): line 1, column 15: maxRecord: unknown key (did you mean "maxRecords"?)"#),
                error.message)
            XCTAssertFalse(error.suggestsHelp)
        }
    }
}
