import Foundation
import MockAPNs
import XCTest

/// `--ready-file`: the bound ports and URLs as JSON, written atomically.
final class ReadyFileTests: XCTestCase {
    func testTheDocumentOfAStartedServerNamesItsBoundPorts() throws {
        var configuration = Configuration()
        configuration.listeners[0].port = 0
        configuration.listeners[0].plaintext = true
        configuration.control = ControlConfiguration(host: "127.0.0.1", port: 0)
        configuration.workers = 1
        let server = MockAPNsServer(configuration: configuration)
        try server.start()
        defer { server.stop() }
        let document = ReadyFile(server: server, pid: 42)
        let listener = try XCTUnwrap(document.listeners.first)
        XCTAssertEqual(listener.port, server.listeners[0].port)
        XCTAssertNotEqual(listener.port, 0)
        XCTAssertEqual(listener.url, "http://127.0.0.1:\(listener.port)")
        XCTAssertEqual(listener.tls, false)
        XCTAssertNil(listener.certificate, "a cleartext listener serves no certificate")
        XCTAssertEqual(document.control?.port, server.controlPort)
        XCTAssertEqual(document.control?.url, server.controlURL)
        XCTAssertEqual(document.control?.host, "127.0.0.1")
    }

    func testATLSListenerNamesTheCertificateItServesEphemeralIncluded() throws {
        var configuration = Configuration()
        configuration.listeners[0].port = 0
        configuration.control = nil
        configuration.workers = 1
        let server = MockAPNsServer(configuration: configuration)
        try server.start()
        defer { server.stop() }
        let listener = try XCTUnwrap(ReadyFile(server: server).listeners.first)
        XCTAssertTrue(listener.tls)
        let certificate = try XCTUnwrap(listener.certificate, "the ephemeral certificate, for a client to trust")
        XCTAssertEqual(certificate, server.certificatePEM(listener: 0))
        XCTAssertTrue(certificate.hasPrefix("-----BEGIN CERTIFICATE-----"), certificate)
        let json = String(decoding: ReadyFile(server: server).json(), as: UTF8.self)
        XCTAssertTrue(json.contains(#""certificate":"-----BEGIN CERTIFICATE-----\n"#), json)
    }

    func testJSONShapeAndAtomicWrite() throws {
        let document = ReadyFile(
            version: "1.2.3", pid: 7,
            listeners: [
                .init(
                    name: "default", environment: "sandbox", host: "127.0.0.1", port: 2197,
                    url: "https://127.0.0.1:2197", tls: true)
            ],
            control: nil)
        XCTAssertEqual(
            String(decoding: document.json(), as: UTF8.self),
            #"{"control":null,"listeners":[{"environment":"sandbox","host":"127.0.0.1","name":"default","port":2197,"tls":true,"url":"https://127.0.0.1:2197"}],"pid":7,"version":"1.2.3"}"#
                + "\n")
        let directory = NSTemporaryDirectory() + "ready-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/ready.json"
        try "stale".write(toFile: path, atomically: false, encoding: .utf8)
        try document.write(to: path)
        XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), document.json())
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory), ["ready.json"], "no temporary left")
        XCTAssertThrowsError(try document.write(to: directory + "/missing/ready.json")) { error in
            XCTAssertTrue("\(error)".contains("No such file or directory"), "\(error)")
        }
    }
}
