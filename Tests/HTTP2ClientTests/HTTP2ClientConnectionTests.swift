import Foundation
import HTTP2Client
import XCTest

/// The client against nghttpd on loopback: TLS verification, ALPN, cleartext, concurrency.
final class HTTP2ClientConnectionTests: XCTestCase {
    private var servers: [ExternalServer] = []

    override func tearDown() {
        servers.forEach { $0.stop() }
        servers = []
        super.tearDown()
    }

    private func nghttpd(tls: Bool = true, extra: [String] = []) throws -> ExternalServer {
        let server = try ExternalServer.nghttpd(tls: tls, extra: extra)
        servers.append(server)
        try server.writeFile("/3/device/abc", "hello")
        return server
    }

    private let trusted = HTTP2ClientTLSOptions(caCertificatePath: TestFixtures.caPath)

    private func connectError(
        _ url: String, _ tls: HTTP2ClientTLSOptions = HTTP2ClientTLSOptions(),
        file: StaticString = #filePath, line: UInt = #line
    ) -> HTTP2ClientError? {
        do {
            let connection = try HTTP2ClientConnection.connect(url: url, tls: tls, timeout: 5)
            connection.close()
            XCTFail("connected to \(url)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testTLSWithVerificationSucceeds() throws {
        let server = try nghttpd()
        let connection = try HTTP2ClientConnection.connect(url: "https://localhost:\(server.port)", tls: trusted)
        defer { connection.close() }
        XCTAssertEqual(connection.alpn, "h2")
        XCTAssertNotNil(connection.tlsVersion)
        XCTAssertGreaterThan(connection.connectTime, 0)
        let results = connection.send([HTTP2ClientRequest(path: "/3/device/abc", body: Array("{}".utf8))])
        XCTAssertEqual(results.count, 1)
        XCTAssertEqual(results[0].response?.status, 200)
        XCTAssertEqual(results[0].response?.body, Array("hello".utf8))
        XCTAssertEqual(results[0].response?.header("Content-Length"), "5")
        XCTAssertEqual(results[0].streamID, 1)
        XCTAssertNotNil(results[0].latency)
        XCTAssertNil(connection.goAway)
    }

    func testVerificationAcceptsTheIPAddressesInTheCertificate() throws {
        let server = try nghttpd()
        let connection = try HTTP2ClientConnection.connect(url: "https://127.0.0.1:\(server.port)", tls: trusted)
        XCTAssertEqual(
            connection.send([HTTP2ClientRequest(method: "GET", path: "/3/device/abc")])[0].response?.status, 200)
        connection.close()
        let v6: HTTP2ClientConnection
        do {
            v6 = try HTTP2ClientConnection.connect(url: "https://[::1]:\(server.port)/", tls: trusted)
        } catch {
            return XCTFail("IPv6 loopback [::1] must work on this machine (nghttpd listens there too): \(error)")
        }
        XCTAssertEqual(v6.endpoint.host, "::1")
        XCTAssertEqual(v6.send([HTTP2ClientRequest(method: "GET", path: "/3/device/abc")])[0].response?.status, 200)
        v6.close()
    }

    func testAnAddressMissingFromTheCertificateFailsVerification() throws {
        let server = try nghttpd()
        // 127.0.0.2 reaches the same wildcard listener but is not in the certificate.
        let error = connectError("https://127.0.0.2:\(server.port)", trusted)
        guard case .tlsVerificationFailed(let message) = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertTrue(message.contains("mismatch"), message)
    }

    func testTheSystemTrustStoreRejectsTheTestCA() throws {
        let server = try nghttpd()
        let error = connectError("https://localhost:\(server.port)")
        guard case .tlsVerificationFailed(let message) = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertTrue(message.contains("issuer certificate"), message)
        XCTAssertTrue("\(error!)".hasPrefix("TLS certificate verification failed: "), "\(error!)")
    }

    func testAWrongCAFailsWithOpenSSLsMessage() throws {
        let server = try nghttpd()
        // The server certificate is no CA: nothing anchors the chain.
        let wrong = HTTP2ClientTLSOptions(caCertificatePath: TestFixtures.serverCertificatePath)
        let error = connectError("https://localhost:\(server.port)", wrong)
        guard case .tlsVerificationFailed(let message) = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertFalse(message.isEmpty)
    }

    func testAMissingCAFileIsASetupError() throws {
        let server = try nghttpd()
        let missing = HTTP2ClientTLSOptions(caCertificatePath: "/nonexistent/ca.pem")
        guard case .tlsSetup(let message) = connectError("https://localhost:\(server.port)", missing) else {
            return XCTFail("expected tlsSetup")
        }
        XCTAssertTrue(message.contains("/nonexistent/ca.pem"), message)
    }

    func testInsecureSkipsVerification() throws {
        let server = try nghttpd()
        let connection = try HTTP2ClientConnection.connect(
            url: "https://127.0.0.2:\(server.port)",
            tls: HTTP2ClientTLSOptions(insecure: true))
        defer { connection.close() }
        XCTAssertEqual(connection.send([HTTP2ClientRequest(path: "/3/device/abc")])[0].response?.status, 200)
    }

    func testCleartextPriorKnowledge() throws {
        let server = try nghttpd(tls: false)
        let connection = try HTTP2ClientConnection.connect(url: "http://127.0.0.1:\(server.port)")
        defer { connection.close() }
        XCTAssertNil(connection.alpn)
        XCTAssertNil(connection.tlsVersion)
        let results = connection.send(
            [
                HTTP2ClientRequest(path: "/3/device/abc", body: Array("{}".utf8)),
                HTTP2ClientRequest(path: "/3/device/missing", body: Array("{}".utf8)),
            ],
            concurrency: 2)
        XCTAssertEqual(results.map { $0.response?.status }, [200, 404])
        XCTAssertEqual(results.map(\.index), [0, 1])
    }

    func testHundredRequestsWithConcurrencyTenAreAllAnswered() throws {
        let server = try nghttpd()
        let connection = try HTTP2ClientConnection.connect(url: "https://localhost:\(server.port)", tls: trusted)
        defer { connection.close() }
        let body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        let requests = (0..<100).map { HTTP2ClientRequest(path: $0 % 10 == 0 ? "/nope" : "/3/device/abc", body: body) }
        let results = connection.send(requests, concurrency: 10)
        XCTAssertEqual(results.count, 100)
        XCTAssertEqual(results.filter { $0.response?.status == 200 }.count, 90)
        XCTAssertEqual(results.filter { $0.response?.status == 404 }.count, 10)
        XCTAssertEqual(Set(results.compactMap(\.streamID)).count, 100, "one stream per request")
        XCTAssertEqual(connection.peakOpenStreams, 10)
        XCTAssertTrue(results.allSatisfy { ($0.latency ?? -1) >= 0 })
        // The connection stays usable afterwards.
        XCTAssertEqual(connection.send([HTTP2ClientRequest(path: "/3/device/abc")])[0].response?.status, 200)
    }

    func testMutualTLSSendsTheClientCertificate() throws {
        let server = try nghttpd(extra: ["--verify-client"])
        let withCertificate = HTTP2ClientTLSOptions(
            caCertificatePath: TestFixtures.caPath,
            certificatePath: TestFixtures.serverCertificatePath,
            keyPath: TestFixtures.serverKeyPath)
        let connection = try HTTP2ClientConnection.connect(
            url: "https://localhost:\(server.port)", tls: withCertificate)
        XCTAssertEqual(connection.send([HTTP2ClientRequest(path: "/3/device/abc")])[0].response?.status, 200)
        connection.close()
        // Without one, nghttpd ends the handshake (an alert with TLS 1.3 arrives after it).
        switch connectError("https://localhost:\(server.port)", trusted) {
        case .tlsFailed, .connectionClosed, .notHTTP2: break
        case let other: XCTFail("\(String(describing: other))")
        }
    }

    func testAMismatchedClientKeyIsASetupError() throws {
        let server = try nghttpd()
        let mismatched = HTTP2ClientTLSOptions(
            caCertificatePath: TestFixtures.caPath,
            certificatePath: TestFixtures.serverCertificatePath,
            keyPath: TestFixtures.tlsDirectory + "/ca-key.pem")
        guard case .tlsSetup(let message) = connectError("https://localhost:\(server.port)", mismatched) else {
            return XCTFail("expected tlsSetup")
        }
        XCTAssertTrue(message.contains("does not match"), message)
    }

    func testACertificateFileWithoutAKeyIsAMissingKeyError() throws {
        let server = try nghttpd()
        // No key file: the key is looked for in the certificate file, which holds none.
        let noKey = HTTP2ClientTLSOptions(
            caCertificatePath: TestFixtures.caPath,
            certificatePath: TestFixtures.serverCertificatePath)
        let error = connectError("https://localhost:\(server.port)", noKey)
        XCTAssertEqual(error, .clientKeyMissing(path: TestFixtures.serverCertificatePath, inCertificateFile: true))
        XCTAssertEqual(
            "\(error!)",
            "the client certificate file \(TestFixtures.serverCertificatePath) holds no "
                + "private key, and no key file was given")
        // A key file that is a certificate.
        let certificateAsKey = HTTP2ClientTLSOptions(
            caCertificatePath: TestFixtures.caPath,
            certificatePath: TestFixtures.serverCertificatePath,
            keyPath: TestFixtures.caPath)
        XCTAssertEqual(
            connectError("https://localhost:\(server.port)", certificateAsKey),
            .clientKeyMissing(path: TestFixtures.caPath, inCertificateFile: false))
    }

    func testConnectionRefused() {
        let port = TestFixtures.freePort()
        let error = connectError("http://127.0.0.1:\(port)")
        XCTAssertEqual(error, .connectionRefused(host: "127.0.0.1", port: port))
        XCTAssertEqual("\(error!)", "connection refused by 127.0.0.1:\(port)")
    }

    func testAnUnresolvableHost() {
        guard case .cannotResolve(let host, _) = connectError("https://no-such-host.invalid:2197") else {
            return XCTFail("expected cannotResolve")
        }
        XCTAssertEqual(host, "no-such-host.invalid")
    }

    func testCleartextToATLSPortIsNotHTTP2() throws {
        let server = try nghttpd()
        switch connectError("http://127.0.0.1:\(server.port)") {
        case .notHTTP2, .connectionClosed: break
        case let other: XCTFail("\(String(describing: other))")
        }
    }

    func testAServerWithoutH2InALPNIsRefused() throws {
        let openssl = "/usr/bin/openssl"
        guard FileManager.default.isExecutableFile(atPath: openssl) else {
            throw ExternalServerError(description: "the openssl CLI is missing (Debian package openssl)")
        }
        let server = try ExternalServer(executable: openssl) { port, _ in
            [
                "s_server", "-quiet", "-accept", String(port), "-cert", TestFixtures.serverCertificatePath,
                "-key", TestFixtures.serverKeyPath, "-alpn", "http/1.1",
            ]
        }
        servers.append(server)
        let error = connectError("https://localhost:\(server.port)", trusted)
        XCTAssertEqual(error, .alpnNotH2(nil))
        XCTAssertEqual("\(error!)", "the server did not select HTTP/2 with ALPN (selected: none)")
    }

    func testSendAfterCloseFailsEveryRequest() throws {
        let server = try nghttpd(tls: false)
        let connection = try HTTP2ClientConnection.connect(url: "http://127.0.0.1:\(server.port)")
        connection.close()
        let results = connection.send([HTTP2ClientRequest(path: "/a"), HTTP2ClientRequest(path: "/b")])
        XCTAssertEqual(results.map(\.outcome), [.failed(.connectionClosed), .failed(.connectionClosed)])
    }
}
