import XCTest

@testable import Configuration

final class BinaryListenerConfigurationTests: XCTestCase {
    /// A command line that parses as something other than serving is a failure of the test,
    /// never a skip.
    private struct NotServe: Error {}

    private func serve(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Configuration {
        guard case .serve(let configuration) = try CommandLineParser.parse(args) else {
            XCTFail("\(args) did not parse as serve", file: file, line: line)
            throw NotServe()
        }
        return configuration
    }

    func testOffUnlessGivenAndApplesPortsByDefault() throws {
        XCTAssertEqual(Configuration().binaryListeners, [])
        XCTAssertEqual(BinaryListenerConfiguration(kind: .binary).port, 2195)
        XCTAssertEqual(BinaryListenerConfiguration(kind: .feedback).port, 2196)
    }

    func testFlags() throws {
        let configuration = try serve(["--binary", "127.0.0.2:2195", "--feedback", "127.0.0.3:2196"])
        XCTAssertEqual(configuration.binaryListeners.map(\.kind), [.binary, .feedback])
        XCTAssertEqual(configuration.binaryListeners.map(\.address), ["127.0.0.2:2195", "127.0.0.3:2196"])
        XCTAssertEqual(configuration.binaryListeners.map(\.certificateRequired), [true, true])
        let open = try serve(["--binary", "127.0.0.1:0", "--binary-without-certificate"])
        XCTAssertEqual(open.binaryListeners.map(\.certificateRequired), [false])
        let topic = try serve(["--binary", "127.0.0.1:0", "--feedback", "127.0.0.1:0", "--binary-topic", "com.a"])
        XCTAssertEqual(topic.binaryListeners.map(\.topic), ["com.a", nil])
    }

    func testFileObjectAndString() throws {
        let configuration = try parseConfiguration(
            #"""
            {"binary": {"listen": "127.0.0.2:2195", "environment": "production", "tokenLength": 64,
                        "payloadLimit": 300, "framedPayloadLimit": 4096, "unregistered": "accept",
                        "certificateRequired": false, "name": "old", "topic": "com.example.old"},
             "feedback": "127.0.0.3:2196"}
            """#)
        let binary = configuration.binaryListeners[0]
        XCTAssertEqual(binary.name, "old")
        XCTAssertEqual(binary.environment, .production)
        XCTAssertEqual(binary.limits.tokenLength, 64)
        XCTAssertEqual(binary.limits.simplePayloadLimit, 300)
        XCTAssertEqual(binary.limits.framedPayloadLimit, 4096)
        XCTAssertEqual(binary.unregistered, .accept)
        XCTAssertFalse(binary.certificateRequired)
        XCTAssertEqual(binary.topic, "com.example.old")
        XCTAssertEqual(configuration.binaryListeners[1].address, "127.0.0.3:2196")
        XCTAssertThrowsError(try parseConfiguration(#"{"binary": {"tokenLength": 101}}"#))
        XCTAssertThrowsError(try parseConfiguration(#"{"binary": 5}"#))
    }

    /// A certificate of the other environment closes the connection by default; the file's
    /// `certificateEnvironment: "accept"` serves it; another value is refused by name.
    func testCertificateEnvironmentAnswer() throws {
        XCTAssertEqual(
            try parseConfiguration(#"{"binary": "127.0.0.1:0"}"#).binaryListeners[0].certificateEnvironment, .close)
        let accepting = try parseConfiguration(#"{"binary": {"certificateEnvironment": "accept"}}"#)
        XCTAssertEqual(accepting.binaryListeners[0].certificateEnvironment, .accept)
        XCTAssertThrowsError(try parseConfiguration(#"{"binary": {"certificateEnvironment": "warn"}}"#)) { error in
            XCTAssertTrue("\(error)".contains("certificateEnvironment"), "\(error)")
        }
    }

    /// The idle timeout (the listener's own, else `--idle-timeout`'s, applied at start) and the
    /// cap on open connections (default 1,000), from the file; bad values refused by name.
    func testIdleTimeoutAndConnectionCap() throws {
        let configuration = try parseConfiguration(
            #"{"binary": {"listen": "127.0.0.1:0", "idleTimeoutSeconds": 2.5, "maxConnections": 3}, "feedback": "127.0.0.1:0"}"#
        )
        XCTAssertEqual(configuration.binaryListeners.map(\.idleTimeoutSeconds), [2.5, nil])
        XCTAssertEqual(configuration.binaryListeners.map(\.maxConnections), [3, 1000])
        for (text, field) in [
            (#"{"binary": {"idleTimeoutSeconds": 0}}"#, "binary.idleTimeoutSeconds"),
            (#"{"binary": {"maxConnections": 0}}"#, "binary.maxConnections"),
            (#"{"feedback": {"maxConnections": 100001}}"#, "feedback.maxConnections"),
        ] {
            XCTAssertThrowsError(try parseConfiguration(text), text) { error in
                XCTAssertTrue("\(error)".contains(field), "\(error)")
            }
        }
    }

    /// A port collision is refused at start with the listener it collides with.
    /// A binary listener's flag without the listener would do nothing: refused, naming what is missing.
    func testBinaryFlagsWithoutTheListenerAreRefused() {
        for args in [
            ["--binary-topic", "com.a"], ["--binary-without-certificate"],
            ["--feedback", "127.0.0.1:0", "--binary-topic", "com.a"],
        ] {
            XCTAssertThrowsError(try serve(args), "\(args)") { error in
                XCTAssertTrue("\(error)".contains("needs a binary listener"), "\(error)")
            }
        }
        XCTAssertNoThrow(try serve(["--feedback", "127.0.0.1:0", "--binary-without-certificate"]))
    }

    /// Strict authentication with a binary gateway that would take unauthenticated connections
    /// is refused at start (the binary protocol has no provider token).
    func testStrictAuthNeedsClientCertificatesOnTheBinaryGateway() {
        for args in [
            ["--auth", "strict", "--binary", "127.0.0.1:0"],
            [
                "--auth", "strict", "--client-ca", "fixtures/auth/client-ca.pem", "--binary", "127.0.0.1:0",
                "--binary-without-certificate",
            ],
        ] {
            XCTAssertThrowsError(try serve(args), "\(args)") { error in
                XCTAssertTrue("\(error)".contains("need a verified client certificate"), "\(error)")
            }
        }
        XCTAssertNoThrow(
            try serve(["--auth", "strict", "--client-ca", "fixtures/auth/client-ca.pem", "--binary", "127.0.0.1:0"]))
        XCTAssertNoThrow(try serve(["--auth", "strict", "--feedback", "127.0.0.1:0"]))
    }

    func testPortCollisionsAreRefused() {
        XCTAssertThrowsError(try serve(["--listen", "127.0.0.1:2195", "--binary", "127.0.0.1:2195"])) { error in
            XCTAssertTrue("\(error)".contains("conflicts with listeners[0]"), "\(error)")
        }
        XCTAssertThrowsError(try serve(["--binary", "127.0.0.1:2196", "--feedback", "127.0.0.1:2196"])) { error in
            XCTAssertTrue("\(error)".contains("conflicts with binary"), "\(error)")
        }
        XCTAssertNoThrow(try serve(["--binary", "127.0.0.2:2195", "--feedback", "127.0.0.2:2196"]))
    }
}
