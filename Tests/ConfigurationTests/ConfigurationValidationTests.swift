import XCTest

@testable import APNsCore
@testable import Configuration

/// `validate()` on configurations built in code, as an embedder would build them.
final class ConfigurationValidationTests: XCTestCase {
    func testHandBuiltProblemsAreReported() {
        let rows: [ErrorRow<(inout Configuration) -> Void>] = [
            ErrorRow({ $0.listeners = [] }, "listeners: expected at least one listener"),
            ErrorRow({ $0.listeners[0].name = "" }, "listeners[0].name: expected a non-empty name"),
            ErrorRow(
                { $0.listeners[0].port = 65536 }, "listeners[0].port: expected an integer from 0 to 65535, got 65536"),
            ErrorRow(
                { $0.listeners[0].host = "[::1]" },
                #"listeners[0].host: expected a host name or IP address, got "[::1]" (invalid character "[" in the host)"#
            ),
            ErrorRow(
                { $0.listeners[0].tlsKeyPath = "k.pem" },
                "listeners[0].tls: a TLS key needs its certificate; the certificate is missing"),
            ErrorRow(
                {
                    $0.listeners[0].tlsCertificatePath = "c.pem"
                    $0.listeners[0].tlsKeyPath = ""
                },
                #"listeners[0].tls.key: expected a file path, got """#),
            ErrorRow(
                {
                    $0.listeners[0].plaintext = true
                    $0.listeners[0].clientCAPaths = ["ca.pem"]
                },
                "listeners[0].clientCAs: a plaintext listener cannot ask for client certificates; remove the client CAs or turn plaintext off"
            ),
            ErrorRow(
                { $0.listeners[0].clientCAPaths = ["ca.pem", ""] },
                #"listeners[0].clientCAs[1]: expected a file path, got """#),
            ErrorRow(
                { $0.listeners.append(ListenerConfiguration(name: "default", port: 1)) },
                #"listeners[1].name: duplicate listener name "default" (also listeners[0]); names must be unique"#),
            ErrorRow(
                { $0.control = ControlConfiguration(host: "0.0.0.0", port: 2197) },
                "control: address 0.0.0.0:2197 conflicts with listeners[0] (127.0.0.1:2197)"),
            ErrorRow({ $0.control?.port = -1 }, "control.port: expected an integer from 0 to 65535, got -1"),
            ErrorRow({ $0.maxRecords = 0 }, "maxRecords: expected an integer from 1 to 10000000, got 0"),
            ErrorRow({ $0.maxEvents = 0 }, "maxEvents: expected an integer from 1 to 10000000, got 0"),
            ErrorRow({ $0.maxFaultRules = 0 }, "maxFaultRules: expected an integer from 1 to 1000000, got 0"),
            ErrorRow({ $0.maxGateways = 100_001 }, "maxGateways: expected an integer from 0 to 100000, got 100001"),
            ErrorRow({ $0.gatewayMaxRecords = 0 }, "gatewayMaxRecords: expected an integer from 1 to 10000000, got 0"),
            ErrorRow(
                { $0.controlIdleTimeoutSeconds = 0 },
                "controlIdleTimeoutSeconds: expected an integer from 1 to 3600, got 0"),
            ErrorRow(
                { $0.maxConcurrentStreams = 0 },
                "http2.maxConcurrentStreams: expected an integer from 1 to 2147483647, got 0"),
            ErrorRow({ $0.workers = -1 }, "workers: expected an integer from 0 to 1024, got -1"),
            ErrorRow(
                { $0.drainTimeoutSeconds = .nan },
                "drainTimeoutSeconds: expected a number of seconds from 0 to 3600, got nan"),
            ErrorRow(
                { $0.drainTimeoutSeconds = -0.5 },
                "drainTimeoutSeconds: expected a number of seconds from 0 to 3600, got -0.5"),
            ErrorRow(
                { $0.validation.tokenLength = 0 },
                "tokenLength: expected an even integer from 2 to 200 (maxTokenLength), got 0"),
            ErrorRow({ $0.validation.maxTokenLength = 0 }, "maxTokenLength: expected an integer of at least 2, got 0"),
            ErrorRow(
                { $0.validation.invalidPayloadReason = .internalServerError },
                #"invalidPayloadReason: expected a reason with status 400, got "InternalServerError" (status 500)"#),
            ErrorRow(
                { $0.devices = [DeviceRegistration(token: "ABCD", environment: .sandbox)] },
                #"devices[0].token: expected a non-empty, even-length, lowercase hexadecimal string, got "ABCD""#),
            ErrorRow(
                { $0.devices = [DeviceRegistration(token: "abcd", environment: .sandbox, unregisteredAt: -1)] },
                "devices[0].unregisteredAt: expected milliseconds since the Unix epoch", exact: false),
            ErrorRow({ $0.keysManifestPath = "" }, #"keys: expected a file path or null, got """#),
            ErrorRow(
                { $0.clockOffsetSeconds = .infinity },
                "clockOffsetSeconds: expected a number of seconds within ±1e10 (negative moves the clock back), got inf"
            ),
            ErrorRow(
                { $0.clockOffsetSeconds = -.nan },
                "clockOffsetSeconds: expected a number of seconds within ±1e10 (negative moves the clock back), got",
                exact: false),
        ]
        for row in rows {
            var configuration = Configuration()
            row.input(&configuration)
            do {
                try configuration.validate()
                XCTFail("validated", line: row.line)
            } catch {
                row.check(error.description)
            }
        }
    }

    func testCoexistingAddressesAreAccepted() throws {
        var configuration = Configuration()
        configuration.listeners = [
            ListenerConfiguration(name: "v4-any", host: "0.0.0.0", port: 2197),
            ListenerConfiguration(name: "v6-loopback", host: "::1", port: 2197),  // another address family
            ListenerConfiguration(name: "ephemeral-1", port: 0),
            ListenerConfiguration(name: "ephemeral-2", port: 0),  // port 0 never clashes
            ListenerConfiguration(
                name: "production", port: 2198, environment: .production,
                tlsCertificatePath: "c.pem", tlsKeyPath: "k.pem", auth: .strict, clientCAPaths: ["ca.pem"]),
            // An ephemeral certificate.
            ListenerConfiguration(name: "self-signed-mtls", port: 2199, clientCAPaths: ["a.pem", "b.pem"]),
            ListenerConfiguration(name: "open", port: 2200, plaintext: true, auth: AuthModeSetting.none),
        ]
        configuration.keysManifestPath = "keys.json"
        configuration.clockOffsetSeconds = -4000
        configuration.control = ControlConfiguration(host: "::1", port: 8197)
        configuration.devices = [DeviceRegistration(token: "00ff", topic: "com.example", environment: .production)]
        XCTAssertNoThrow(try configuration.validate())
    }
}
