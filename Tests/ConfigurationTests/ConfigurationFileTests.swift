import Broadcast
import Devices
import Foundation
import XCTest

@testable import APNsCore
@testable import Configuration
@testable import Faults

final class ConfigurationFileTests: XCTestCase {
    // MARK: Defaults

    func testDefaults() throws {
        let configuration = Configuration()
        XCTAssertEqual(
            configuration.listeners,
            [
                ListenerConfiguration(
                    name: "default", host: "127.0.0.1", port: 2197,
                    environment: .sandbox, plaintext: false,
                    tlsCertificatePath: nil, tlsKeyPath: nil, alpn: .optional,
                    auth: .permissive, clientCAPaths: [])
            ])
        XCTAssertEqual(configuration.listeners[0].address, "127.0.0.1:2197")
        XCTAssertEqual(configuration.control, ControlConfiguration(host: "127.0.0.1", port: 8197))
        XCTAssertEqual(configuration.maxRecords, 100_000)
        XCTAssertEqual(configuration.validation, ValidationOptions())
        XCTAssertEqual(configuration.validation.registry, .open)
        XCTAssertNil(configuration.validation.tokenLength)
        XCTAssertEqual(configuration.devices, [])
        XCTAssertEqual(configuration.maxConcurrentStreams, 1000)
        XCTAssertEqual(configuration.streamProfile, .fixed)
        XCTAssertEqual(configuration.workers, 0)
        XCTAssertEqual(configuration.logLevel, .info)
        XCTAssertEqual(configuration.drainTimeoutSeconds, 5)
        XCTAssertNil(configuration.keysManifestPath)
        XCTAssertEqual(configuration.clockOffsetSeconds, 0)
        XCTAssertNoThrow(try configuration.validate())
    }

    func testBroadcastSettings() throws {
        let configuration = try parseConfiguration(
            #"""
            {"broadcast": {"disabledBundleIds": ["com.a", "com.b"], "channelLimit": 3, "acceptsPriority1": false,
              "rejectsStartEvent": true, "lintsAsErrors": true, "legacyAPNSwiftForms": false,
              "storedMessageSeconds": 60, "totalChannelLimit": 7}}
            """#)
        XCTAssertEqual(
            configuration.broadcast,
            BroadcastOptions(
                disabledBundleIDs: ["com.a", "com.b"], acceptsPriority1: false, rejectsStartEvent: true,
                lintsAsErrors: true, legacyAPNSwiftForms: false, channelLimit: 3, totalChannelLimit: 7,
                storedMessageSeconds: 60))
        XCTAssertEqual(try parseConfiguration(#"{"broadcast": {}}"#).broadcast, BroadcastOptions())
        XCTAssertEqual(BroadcastOptions().storedMessageSeconds, 8 * 3600, "Apple: at most 8 hours")
    }

    func testEmptyDocumentObjectMeansDefaults() throws {
        XCTAssertEqual(try parseConfiguration("{}"), Configuration())
        XCTAssertEqual(try parseConfiguration("// nothing to change\n{ /* really */ }\n"), Configuration())
    }

    func testEnumerationRawValuesAreTheFileSpellings() {
        XCTAssertEqual(StreamProfile.allCases.map(\.rawValue), ["fixed", "apple-observed"])
        XCTAssertEqual(LogLevel.allCases.map(\.rawValue), ["error", "warning", "info", "debug"])
        XCTAssertEqual(ALPNPolicy.allCases.map(\.rawValue), ["optional", "required"])
        XCTAssertEqual(AuthModeSetting.allCases.map(\.rawValue), ["none", "permissive", "strict"])
        XCTAssertTrue(LogLevel.error < LogLevel.warning && LogLevel.info < LogLevel.debug)
    }

    // MARK: Every key

    func testEveryKeyIsRead() throws {
        let text = """
            {
              "listeners": [
                { "name": "dev", "host": "0.0.0.0", "port": 4443, "environment": "sandbox", "plaintext": true, "alpn": "required",
                  "auth": "none" },
                { "name": "prod", "listen": "[::1]:4444", "environment": "production",
                  "tls": { "certificate": "/etc/cert.pem", "key": "/etc/key.pem" }, "auth": "strict",
                  "clientCAs": ["/etc/ca-1.pem", "ca-2.pem"],
                  "conditions": { "handshakeDelayMs": 9000, "silent": true, "refuseMs": 5000 } }
              ],
              "control": { "host": "[::1]", "port": 9000 },
              "maxRecords": 7,
              "registry": "closed",
              "tokenLength": 64,
              "maxTokenLength": 100,
              "lintsAsErrors": true,
              "invalidPayloadReason": "BadTopic",
              "devices": [
                { "token": "ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789", "topic": "com.example.app",
                  "environment": "production", "unregisteredAt": 1714564800000, "expired": true }
              ],
              "http2": { "maxConcurrentStreams": 10, "streamProfile": "apple-observed" },
              "workers": 3,
              "logLevel": "debug",
              "drainTimeoutSeconds": 0.5,
              "keys": "auth/keys.json",
              "clockOffsetSeconds": -4000.5,
              "deviceModel": { "maxStorageSeconds": 60, "backgroundBudget": 2, "backgroundBudgetWindowSeconds": 600,
                "overBudget": "drop", "lowPowerBurstSeconds": 30, "lowPowerBurstJitterSeconds": 0.5,
                "seed": 18446744073709551615, "historyLimit": 5, "removedApp": "discarded" }
            }
            """
        var expected = Configuration()
        expected.listeners = [
            ListenerConfiguration(
                name: "dev", host: "0.0.0.0", port: 4443, environment: .sandbox, plaintext: true, alpn: .required,
                auth: AuthModeSetting.none),
            ListenerConfiguration(
                name: "prod", host: "::1", port: 4444, environment: .production,
                tlsCertificatePath: "/etc/cert.pem", tlsKeyPath: "/etc/key.pem", auth: .strict,
                clientCAPaths: ["/etc/ca-1.pem", "ca-2.pem"],
                conditions: ListenerConditionsUpdate(handshakeDelayMs: 9000, silent: true, refuseMs: 5000)),
        ]
        expected.control = ControlConfiguration(host: "::1", port: 9000)
        expected.maxRecords = 7
        expected.validation = ValidationOptions(
            tokenLength: 64, maxTokenLength: 100, lintsAsErrors: true,
            invalidPayloadReason: .badTopic, registry: .closed)
        expected.devices = [
            DeviceRegistration(
                token: "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789",
                topic: "com.example.app", environment: .production,
                unregisteredAt: 1_714_564_800_000, expired: true)
        ]
        expected.maxConcurrentStreams = 10
        expected.streamProfile = .appleObserved
        expected.workers = 3
        expected.logLevel = .debug
        expected.drainTimeoutSeconds = 0.5
        expected.keysManifestPath = "auth/keys.json"
        expected.clockOffsetSeconds = -4000.5
        expected.deviceModel = DeviceModelOptions(
            maxStorageSeconds: 60, backgroundBudget: 2, backgroundBudgetWindowSeconds: 600, overBudget: .drop,
            lowPowerBurstSeconds: 30, lowPowerBurstJitterSeconds: 0.5, seed: .max, historyLimit: 5,
            removedApp: .discarded)
        XCTAssertEqual(try parseConfiguration(text), expected)
    }

    func testListenerFieldsDefaultIndividually() throws {
        let configuration = try parseConfiguration(#"{"listeners": [{"environment": "production"}, {"port": 0}]}"#)
        XCTAssertEqual(
            configuration.listeners,
            [
                ListenerConfiguration(name: "production", port: 2197, environment: .production),
                ListenerConfiguration(name: "sandbox", port: 0, environment: .sandbox),
            ])
    }

    func testValueForms() throws {
        // Each row: a document, and what it must produce.
        let rows: [(String, (inout Configuration) -> Void, UInt)] = [
            (#"{"control": null}"#, { $0.control = nil }, #line),
            (#"{"control": "off"}"#, { $0.control = nil }, #line),
            (#"{"control": "0.0.0.0:0"}"#, { $0.control = ControlConfiguration(host: "0.0.0.0", port: 0) }, #line),
            (#"{"control": "[::1]:8000"}"#, { $0.control = ControlConfiguration(host: "::1", port: 8000) }, #line),
            (#"{"control": {}}"#, { $0.control = ControlConfiguration() }, #line),
            (#"{"control": {"port": 1}}"#, { $0.control = ControlConfiguration(port: 1) }, #line),
            (
                #"{"listeners": [{"name": "x", "host": "::1"}]}"#,
                { $0.listeners = [ListenerConfiguration(name: "x", host: "::1")] }, #line
            ),
            (
                #"{"listeners": [{"name": "x", "host": "localhost"}]}"#,
                { $0.listeners = [ListenerConfiguration(name: "x", host: "localhost")] }, #line
            ),
            (
                #"{"listeners": [{"name": "x", "port": 2197.0}]}"#,
                { $0.listeners = [ListenerConfiguration(name: "x")] }, #line
            ),
            (
                #"{"listeners": [{"name": "x", "tls": null}]}"#, { $0.listeners = [ListenerConfiguration(name: "x")] },
                #line
            ),
            (
                #"{"listeners": [{"name": "a", "port": 0}, {"name": "b", "port": 0}]}"#,
                {
                    $0.listeners = [
                        ListenerConfiguration(name: "a", port: 0), ListenerConfiguration(name: "b", port: 0),
                    ]
                }, #line
            ),
            (
                #"{"listeners": [{"name": "a", "host": "0.0.0.0"}, {"name": "b", "host": "::1"}]}"#,
                {
                    $0.listeners = [
                        ListenerConfiguration(name: "a", host: "0.0.0.0"),
                        ListenerConfiguration(name: "b", host: "::1"),
                    ]
                }, #line
            ),
            (#"{"maxRecords": 1e3}"#, { $0.maxRecords = 1000 }, #line),
            (#"{"maxEvents": 50}"#, { $0.maxEvents = 50 }, #line),
            (#"{"maxFaultRules": 20}"#, { $0.maxFaultRules = 20 }, #line),
            (#"{"maxGateways": 5}"#, { $0.maxGateways = 5 }, #line),
            (#"{"gatewayMaxRecords": 99}"#, { $0.gatewayMaxRecords = 99 }, #line),
            (#"{"controlIdleTimeoutSeconds": 5}"#, { $0.controlIdleTimeoutSeconds = 5 }, #line),
            (#"{"controlMaxStreams": 0}"#, { $0.controlMaxStreams = 0 }, #line),
            (#"{"controlStreamBufferBytes": 65536}"#, { $0.controlStreamBufferBytes = 65536 }, #line),
            (#"{"tokenLength": null}"#, { $0.validation.tokenLength = nil }, #line),
            (#"{"tokenLength": 200}"#, { $0.validation.tokenLength = 200 }, #line),
            (#"{"drainTimeoutSeconds": 0}"#, { $0.drainTimeoutSeconds = 0 }, #line),
            (#"{"drainTimeoutSeconds": 30}"#, { $0.drainTimeoutSeconds = 30 }, #line),
            (#"{"workers": 1024}"#, { $0.workers = 1024 }, #line),
            (#"{"http2": {}}"#, { _ in }, #line),
            (#"{"http2": {"maxConcurrentStreams": 2147483647}}"#, { $0.maxConcurrentStreams = 2_147_483_647 }, #line),
            (#"{"devices": []}"#, { _ in }, #line),
            (
                #"{"devices": [{"token": "AbCd"}]}"#,
                { $0.devices = [DeviceRegistration(token: "abcd", environment: .sandbox)] }, #line
            ),
            (
                #"{"devices": [{"token": "abcd", "topic": null, "unregisteredAt": null}]}"#,
                { $0.devices = [DeviceRegistration(token: "abcd", environment: .sandbox)] }, #line
            ),
            (
                #"{"devices": [{"token": "abcd", "unregisteredAt": "2024-05-01T12:00:00Z"}]}"#,
                {
                    $0.devices = [
                        DeviceRegistration(token: "abcd", environment: .sandbox, unregisteredAt: 1_714_564_800_000)
                    ]
                }, #line
            ),
            (
                #"{"devices": [{"token": "abcd", "unregisteredAt": "2024-05-01T12:00:00.250Z"}]}"#,
                {
                    $0.devices = [
                        DeviceRegistration(token: "abcd", environment: .sandbox, unregisteredAt: 1_714_564_800_250)
                    ]
                }, #line
            ),
            (
                #"{"devices": [{"token": "abcd", "unregisteredAt": "2024-05-01T14:00:00+02:00"}]}"#,
                {
                    $0.devices = [
                        DeviceRegistration(token: "abcd", environment: .sandbox, unregisteredAt: 1_714_564_800_000)
                    ]
                }, #line
            ),
            (
                #"{"devices": [{"token": "abcd", "unregisteredAt": 0}]}"#,
                { $0.devices = [DeviceRegistration(token: "abcd", environment: .sandbox, unregisteredAt: 0)] }, #line
            ),
            (
                #"{"devices": [{"token": "abcd", "unregisteredAt": "9999-12-31T23:59:59.999Z"}]}"#,
                {
                    $0.devices = [
                        DeviceRegistration(token: "abcd", environment: .sandbox, unregisteredAt: 253_402_300_799_999)
                    ]
                }, #line
            ),
            (
                #"{"listeners": [{"name": "x", "auth": "none"}]}"#,
                { $0.listeners = [ListenerConfiguration(name: "x", auth: AuthModeSetting.none)] }, #line
            ),
            (
                #"{"listeners": [{"name": "x", "auth": "permissive"}]}"#,
                { $0.listeners = [ListenerConfiguration(name: "x")] }, #line
            ),
            (
                #"{"listeners": [{"name": "x", "auth": "strict"}]}"#,
                { $0.listeners = [ListenerConfiguration(name: "x", auth: .strict)] }, #line
            ),
            (
                #"{"listeners": [{"name": "x", "clientCAs": []}]}"#,
                { $0.listeners = [ListenerConfiguration(name: "x")] }, #line
            ),
            (
                #"{"listeners": [{"name": "x", "clientCAs": ["ca.pem"]}]}"#,
                { $0.listeners = [ListenerConfiguration(name: "x", clientCAPaths: ["ca.pem"])] }, #line
            ),
            (
                #"{"listeners": [{"name": "x", "plaintext": true, "clientCAs": []}]}"#,
                { $0.listeners = [ListenerConfiguration(name: "x", plaintext: true)] }, #line
            ),
            (#"{"keys": null}"#, { $0.keysManifestPath = nil }, #line),
            (#"{"readyFile": null}"#, { $0.readyFilePath = nil }, #line),
            (#"{"readyFile": "/run/mock-apns/ready.json"}"#, { $0.readyFilePath = "/run/mock-apns/ready.json" }, #line),
            (#"{"journal": null}"#, { $0.journalPath = nil }, #line),
            (
                #"{"journal": "/var/mock-apns/journal.ndjson"}"#, { $0.journalPath = "/var/mock-apns/journal.ndjson" },
                #line
            ),
            (#"{"journalSync": "always"}"#, { $0.journalSync = .always }, #line),
            (#"{"journalSync": "never"}"#, { $0.journalSync = .never }, #line),
            (#"{"keys": "/etc/mock-apns/keys.json"}"#, { $0.keysManifestPath = "/etc/mock-apns/keys.json" }, #line),
            (#"{"clockOffsetSeconds": 0}"#, { _ in }, #line),
            (#"{"clockOffsetSeconds": 4000}"#, { $0.clockOffsetSeconds = 4000 }, #line),
            (#"{"clockOffsetSeconds": -4000}"#, { $0.clockOffsetSeconds = -4000 }, #line),
            (#"{"clockOffsetSeconds": 0.25}"#, { $0.clockOffsetSeconds = 0.25 }, #line),
            (
                #"{"devices": [{"token": "abcd", "expired": true}]}"#,
                { $0.devices = [DeviceRegistration(token: "abcd", environment: .sandbox, expired: true)] }, #line
            ),
        ]
        for (text, change, line) in rows {
            var expected = Configuration()
            change(&expected)
            do {
                let parsed = try parseConfiguration(text)
                XCTAssertEqual(parsed, expected, text, line: line)
            } catch {
                XCTFail("\(text): \(error)", line: line)
            }
        }
    }

    // MARK: Errors

    func testErrorMessagesNameTheFieldAndTheProblem() {
        let rows: [ErrorRow<String>] = [
            // The document
            ErrorRow("[]", "expected a JSON object at the top level, got an array"),
            ErrorRow(
                #"{"maxRecord": 5}"#,
                #"maxRecord: unknown key (did you mean "maxRecords"?); valid keys here: listeners, keys, clockOffsetSeconds, "#
                    + "control, readyFile, journal, journalSync, maxRecords, maxEvents, maxFaultRules, maxGateways, gatewayMaxRecords, controlIdleTimeoutSeconds, controlMaxStreams, controlStreamBufferBytes, registry, tokenLength, http2, workers, drainTimeoutSeconds, "
                    + "idleTimeoutSeconds, idleAction, scenarios, binary, feedback, logLevel, maxTokenLength, lintsAsErrors, "
                    + "invalidPayloadReason, devices, deviceModel, broadcast, faults"
            ),
            ErrorRow(#"{"key": "keys.json"}"#, #"key: unknown key (did you mean "keys"?)"#, exact: false),
            ErrorRow(
                #"{"clockOfsetSeconds": 5}"#, #"clockOfsetSeconds: unknown key (did you mean "clockOffsetSeconds"?)"#,
                exact: false),
            ErrorRow(#"{"LogLevel": "info"}"#, #"LogLevel: unknown key (did you mean "logLevel"?)"#, exact: false),
            ErrorRow(#"{"a" 1}"#, "not valid JSON", exact: false),
            // Listeners
            ErrorRow(#"{"listeners": {}}"#, "listeners: expected an array of listener objects, got an object"),
            ErrorRow(#"{"listeners": []}"#, "listeners: expected at least one listener"),
            ErrorRow(#"{"listeners": [5]}"#, "listeners[0]: expected an object, got 5"),
            ErrorRow(
                #"{"listeners": [{"hots": "x"}]}"#,
                #"listeners[0].hots: unknown key (did you mean "host"?); valid keys here: name, host, port, listen, "#
                    + "environment, plaintext, tls, alpn, auth, clientCAs, conditions"),
            ErrorRow(
                #"{"listeners": [{"conditions": {"delayMs": 5}}]}"#,
                #"listeners[0].conditions.delayMs: unknown key; valid keys here: handshakeDelayMs, silent, refuseMs"#),
            ErrorRow(
                #"{"listeners": [{"conditions": {"handshakeDelayMs": 600001}}]}"#,
                "listeners[0].conditions.handshakeDelayMs: expected an integer from 0 to 600000, got 600001"),
            ErrorRow(
                #"{"listeners": [{"conditions": {"refuseMs": -1}}]}"#,
                "listeners[0].conditions.refuseMs: expected an integer from 0 to 86400000, got -1"),
            ErrorRow(
                #"{"listeners": [{"conditions": {"silent": "yes"}}]}"#,
                #"listeners[0].conditions.silent: expected true or false, got "yes""#),
            ErrorRow(#"{"listeners": [{"conditions": 5}]}"#, "listeners[0].conditions: expected an object, got 5"),
            // The control API's own reading of conditions: a near miss is named.
            ErrorRow(
                #"{"listeners": [{"conditions": {"silnet": true}}]}"#,
                #"listeners[0].conditions.silnet: unknown key (did you mean "silent"?); valid keys here: handshakeDelayMs, silent, refuseMs"#
            ),
            ErrorRow(
                #"{"listeners": [{"clientCA": ["ca.pem"]}]}"#,
                #"listeners[0].clientCA: unknown key (did you mean "clientCAs"?)"#, exact: false),
            ErrorRow(
                #"{"listeners": [{}, {"port": "abc"}]}"#,
                #"listeners[1].port: expected an integer from 0 to 65535, got "abc""#),
            ErrorRow(
                #"{"listeners": [{"port": 70000}]}"#,
                "listeners[0].port: expected an integer from 0 to 65535, got 70000"),
            ErrorRow(
                #"{"listeners": [{"port": -1}]}"#, "listeners[0].port: expected an integer from 0 to 65535, got -1"),
            ErrorRow(
                #"{"listeners": [{"port": 1.5}]}"#, "listeners[0].port: expected an integer from 0 to 65535, got 1.5"),
            ErrorRow(
                #"{"listeners": [{"port": null}]}"#, "listeners[0].port: expected an integer from 0 to 65535, got null"),
            ErrorRow(#"{"listeners": [{"name": ""}]}"#, #"listeners[0].name: expected a non-empty string, got """#),
            ErrorRow(#"{"listeners": [{"name": 1}]}"#, "listeners[0].name: expected a non-empty string, got 1"),
            ErrorRow(
                #"{"listeners": [{"port": 1}, {"port": 2}]}"#,
                #"listeners[1].name: duplicate listener name "sandbox" (also listeners[0]); names must be unique"#),
            ErrorRow(
                #"{"listeners": [{"name": "a"}, {"name": "b"}]}"#,
                "listeners[1]: address 127.0.0.1:2197 conflicts with listeners[0] (127.0.0.1:2197)"),
            ErrorRow(
                #"{"listeners": [{"name": "a", "host": "0.0.0.0"}, {"name": "b"}]}"#,
                "listeners[1]: address 127.0.0.1:2197 conflicts with listeners[0] (0.0.0.0:2197)"),
            ErrorRow(
                #"{"listeners": [{"name": "a", "host": "::"}, {"name": "b", "listen": "127.0.0.1:2197"}]}"#,
                "listeners[1]: address 127.0.0.1:2197 conflicts with listeners[0] ([::]:2197)"),
            ErrorRow(
                #"{"listeners": [{"name": "a", "host": "LOCALHOST"}, {"name": "b", "host": "localhost"}]}"#,
                "listeners[1]: address localhost:2197 conflicts with listeners[0] (LOCALHOST:2197)"),
            ErrorRow(
                #"{"listeners": [{"environment": "prod"}]}"#,
                #"listeners[0].environment: expected one of "sandbox", "production", got "prod""#),
            ErrorRow(
                #"{"listeners": [{"environment": "prodution"}]}"#,
                #"listeners[0].environment: expected one of "sandbox", "production", got "prodution" (did you mean "production"?)"#
            ),
            ErrorRow(
                #"{"listeners": [{"plaintext": "yes"}]}"#, #"listeners[0].plaintext: expected true or false, got "yes""#
            ),
            ErrorRow(#"{"listeners": [{"plaintext": 1}]}"#, "listeners[0].plaintext: expected true or false, got 1"),
            ErrorRow(
                #"{"listeners": [{"tls": "cert.pem"}]}"#, #"listeners[0].tls: expected an object, got "cert.pem""#),
            ErrorRow(
                #"{"listeners": [{"tls": {"certificate": "c.pem"}}]}"#,
                "listeners[0].tls: a TLS certificate needs its key; the key is missing"),
            ErrorRow(
                #"{"listeners": [{"tls": {"key": "k.pem"}}]}"#,
                "listeners[0].tls: a TLS key needs its certificate; the certificate is missing"),
            ErrorRow(
                #"{"listeners": [{"tls": {"certificate": "", "key": "k.pem"}}]}"#,
                #"listeners[0].tls.certificate: expected a file path, got """#),
            ErrorRow(
                #"{"listeners": [{"tls": {"cert": "c.pem"}}]}"#,
                "listeners[0].tls.cert: unknown key; valid keys here: certificate, key"),
            ErrorRow(
                #"{"listeners": [{"plaintext": true, "tls": {"certificate": "c.pem", "key": "k.pem"}}]}"#,
                "listeners[0].tls: a plaintext listener takes no TLS certificate; remove the certificate and key or turn plaintext off"
            ),
            ErrorRow(
                #"{"listeners": [{"alpn": "always"}]}"#,
                #"listeners[0].alpn: expected one of "optional", "required", got "always""#),
            // Listener authentication
            ErrorRow(
                #"{"listeners": [{"auth": "strcit"}]}"#,
                #"listeners[0].auth: expected one of "none", "permissive", "strict", got "strcit" (did you mean "strict"?)"#
            ),
            ErrorRow(
                #"{"listeners": [{"auth": "jwt"}]}"#,
                #"listeners[0].auth: expected one of "none", "permissive", "strict", got "jwt""#),
            ErrorRow(
                #"{"listeners": [{"auth": true}]}"#,
                #"listeners[0].auth: expected one of "none", "permissive", "strict", got true"#),
            ErrorRow(
                #"{"listeners": [{"auth": null}]}"#,
                #"listeners[0].auth: expected one of "none", "permissive", "strict", got null"#),
            ErrorRow(
                #"{"listeners": [{"clientCAs": "ca.pem"}]}"#,
                #"listeners[0].clientCAs: expected an array of PEM file paths, got "ca.pem""#),
            ErrorRow(
                #"{"listeners": [{"clientCAs": null}]}"#,
                "listeners[0].clientCAs: expected an array of PEM file paths, got null"),
            ErrorRow(
                #"{"listeners": [{"clientCAs": {"file": "ca.pem"}}]}"#,
                "listeners[0].clientCAs: expected an array of PEM file paths, got an object"),
            ErrorRow(
                #"{"listeners": [{}, {"port": 1, "clientCAs": ["a.pem", 5]}]}"#,
                "listeners[1].clientCAs[1]: expected a file path, got 5"),
            ErrorRow(
                #"{"listeners": [{"clientCAs": [["a.pem"]]}]}"#,
                "listeners[0].clientCAs[0]: expected a file path, got an array"),
            ErrorRow(
                #"{"listeners": [{"clientCAs": [""]}]}"#, #"listeners[0].clientCAs[0]: expected a file path, got """#),
            ErrorRow(
                #"{"listeners": [{"plaintext": true, "clientCAs": ["ca.pem"]}]}"#,
                "listeners[0].clientCAs: a plaintext listener cannot ask for client certificates; remove the client CAs or turn plaintext off"
            ),
            ErrorRow(
                #"{"listeners": [{"listen": "127.0.0.1:1", "port": 2}]}"#,
                #"listeners[0].listen: give either "listen" or "host" and "port", not both"#),
            ErrorRow(
                #"{"listeners": [{"listen": "::1:2197"}]}"#,
                #"listeners[0].listen: expected "HOST:PORT (IPv6 as [::1]:2197)", got "::1:2197": put IPv6 addresses in brackets, e.g. [::1]:2197"#
            ),
            ErrorRow(
                #"{"listeners": [{"listen": "localhost"}]}"#,
                #"listeners[0].listen: expected "HOST:PORT (IPv6 as [::1]:2197)", got "localhost": missing :PORT"#),
            ErrorRow(
                #"{"listeners": [{"listen": 2197}]}"#,
                #"listeners[0].listen: expected "HOST:PORT (IPv6 as [::1]:2197)", got 2197"#),
            ErrorRow(
                #"{"listeners": [{"host": "a b"}]}"#,
                #"listeners[0].host: expected a host name or IP address, got "a b" (invalid character " " in the host)"#
            ),
            ErrorRow(
                #"{"listeners": [{"host": "https://x"}]}"#,
                #"listeners[0].host: expected a host name or IP address, got "https://x" (invalid character "/" in the host)"#
            ),
            ErrorRow(
                #"{"listeners": [{"host": ""}]}"#, #"listeners[0].host: expected a host name or IP address, got """#),
            // Control
            ErrorRow(
                #"{"control": 5}"#,
                #"control: expected {"host", "port"}, "HOST:PORT (IPv6 as [::1]:2197)", "off" or null, got 5"#),
            ErrorRow(
                #"{"control": "x"}"#, #"control: expected "HOST:PORT (IPv6 as [::1]:2197)", got "x": missing :PORT"#),
            ErrorRow(#"{"control": {"port": -1}}"#, "control.port: expected an integer from 0 to 65535, got -1"),
            ErrorRow(
                #"{"control": {"hostname": "x"}}"#,
                "control.hostname: unknown key; valid keys here: host, port, allowHosts, allowOrigins, token, insecureNoToken"
            ),
            ErrorRow(
                #"{"control": {"host": "a;b"}}"#,
                #"control.host: expected a host name or IP address, got "a;b" (invalid character ";" in the host)"#),
            ErrorRow(
                #"{"listeners": [{"port": 8197}]}"#,
                "control: address 127.0.0.1:8197 conflicts with listeners[0] (127.0.0.1:8197)"),
            // Limits and validation options
            ErrorRow(#"{"maxRecords": 0}"#, "maxRecords: expected an integer from 1 to 10000000, got 0"),
            ErrorRow(#"{"maxRecords": "10"}"#, #"maxRecords: expected an integer from 1 to 10000000, got "10""#),
            ErrorRow(#"{"maxRecords": 1e30}"#, "maxRecords: expected an integer from 1 to 10000000, got 1e+30"),
            ErrorRow(#"{"maxEvents": 0}"#, "maxEvents: expected an integer from 1 to 10000000, got 0"),
            ErrorRow(#"{"maxFaultRules": 0}"#, "maxFaultRules: expected an integer from 1 to 1000000, got 0"),
            ErrorRow(#"{"maxGateways": -1}"#, "maxGateways: expected an integer from 0 to 100000, got -1"),
            ErrorRow(#"{"gatewayMaxRecords": 0}"#, "gatewayMaxRecords: expected an integer from 1 to 10000000, got 0"),
            ErrorRow(
                #"{"controlIdleTimeoutSeconds": 0}"#,
                "controlIdleTimeoutSeconds: expected an integer from 1 to 3600, got 0"),
            ErrorRow(
                #"{"registry": "opne"}"#,
                #"registry: expected one of "open", "closed", got "opne" (did you mean "open"?)"#),
            ErrorRow(
                #"{"tokenLength": 63}"#, "tokenLength: expected an even integer from 2 to 200 (maxTokenLength), got 63"),
            ErrorRow(
                #"{"tokenLength": 300}"#,
                "tokenLength: expected an even integer from 2 to 200 (maxTokenLength), got 300"),
            ErrorRow(
                #"{"tokenLength": "64"}"#,
                #"tokenLength: expected an even integer from 2 to 200 (maxTokenLength), got "64""#),
            ErrorRow(
                #"{"tokenLength": 64, "maxTokenLength": 32}"#,
                "tokenLength: expected an even integer from 2 to 32 (maxTokenLength), got 64"),
            ErrorRow(#"{"maxTokenLength": 1}"#, "maxTokenLength: expected an integer of at least 2, got 1"),
            ErrorRow(#"{"lintsAsErrors": "true"}"#, #"lintsAsErrors: expected true or false, got "true""#),
            ErrorRow(
                #"{"invalidPayloadReason": "Unregistered"}"#,
                #"invalidPayloadReason: expected a reason with status 400, got "Unregistered" (status 410)"#),
            ErrorRow(
                #"{"invalidPayloadReason": "PayloadEmtpy"}"#,
                "invalidPayloadReason: expected a reason with status 400 (BadCollapseId, BadDeviceToken, BadExpirationDate, "
                    + "BadMessageId, BadPriority, BadTopic, DeviceTokenNotForTopic, DuplicateHeaders, IdleTimeout, "
                    + "InvalidPushType, MissingDeviceToken, MissingTopic, PayloadEmpty, TopicDisallowed, "
                    + "FeatureNotEnabled, MissingChannelId, BadChannelId, ChannelNotRegistered, BadRequestParams, "
                    + "BadRequestPayload, MissingPushType, CannotCreateChannelConfig), "
                    + #"got "PayloadEmtpy" (did you mean "PayloadEmpty"?)"#),
            ErrorRow(#"{"invalidPayloadReason": 400}"#, "got 400", exact: false),
            // Devices
            ErrorRow(#"{"devices": {}}"#, "devices: expected an array of device objects, got an object"),
            ErrorRow(#"{"devices": [{}]}"#, "devices[0].token: missing; every device needs its token"),
            ErrorRow(
                #"{"devices": [{"token": "abcd", "topics": "x"}]}"#,
                #"devices[0].topics: unknown key (did you mean "topic"?); valid keys here: token, topic, environment, unregisteredAt, expired, virtual, connectivity, appState, settings, capabilities, categories, foregroundPresentation, installed, channels"#
            ),
            ErrorRow(
                #"{"devices": [{"token": "xyz1"}]}"#,
                #"devices[0].token: expected a non-empty, even-length, lowercase hexadecimal string, got "xyz1""#),
            ErrorRow(
                #"{"devices": [{"token": "abc"}]}"#,
                #"devices[0].token: expected a non-empty, even-length, lowercase hexadecimal string, got "abc""#),
            ErrorRow(#"{"devices": [{"token": ""}]}"#, #"devices[0].token: expected a hexadecimal string, got """#),
            ErrorRow(#"{"devices": [{"token": 1234}]}"#, "devices[0].token: expected a hexadecimal string, got 1234"),
            ErrorRow(
                #"{"tokenLength": 64, "devices": [{"token": "abcd"}]}"#,
                "devices[0].token: the token has 4 hex characters but tokenLength requires 64"),
            ErrorRow(
                #"{"maxTokenLength": 4, "devices": [{"token": "abcdef"}]}"#,
                "devices[0].token: the token has 6 hex characters, more than maxTokenLength (4)"),
            // The virtual devices' settings (docs/device-model.md §5)
            ErrorRow(
                #"{"deviceModel": {"maxStorageSeconds": -1}}"#,
                "deviceModel.maxStorageSeconds: expected a finite number of seconds, at least 0, got -1"),
            ErrorRow(
                #"{"deviceModel": {"backgroundBudgetWindowSeconds": 0}}"#,
                "deviceModel.backgroundBudgetWindowSeconds: expected a finite number of seconds, more than 0, got 0"),
            ErrorRow(
                #"{"deviceModel": {"backgroundBudget": 1001}}"#,
                "deviceModel.backgroundBudget: expected an integer from 0 to 1000, got 1001"),
            ErrorRow(#"{"deviceModel": {"overBudget": "dorp"}}"#, #"(did you mean "drop"?)"#, exact: false),
            ErrorRow(
                #"{"deviceModel": {"historyLimit": 0}}"#,
                "deviceModel.historyLimit: expected an integer from 1 to 1000000, got 0"),
            ErrorRow(
                #"{"deviceModel": {"seed": -1}}"#, "deviceModel.seed: expected an integer from 0 to 2^64-1, got -1"),
            ErrorRow(
                #"{"deviceModel": {"sed": 1}}"#, #"deviceModel.sed: unknown key (did you mean "seed"?)"#, exact: false),
            // Broadcast (docs/broadcast.md §3)
            ErrorRow(
                #"{"broadcast": {"channelLimit": 0}}"#,
                "broadcast.channelLimit: expected an integer from 1 to 1000000, got 0"),
            ErrorRow(
                #"{"broadcast": {"storedMessageSeconds": 0}}"#,
                "broadcast.storedMessageSeconds: expected an integer from 1 to 2592000, got 0"),
            ErrorRow(
                #"{"broadcast": {"totalChannelLimit": 0}}"#,
                "broadcast.totalChannelLimit: expected an integer from 1 to 10000000, got 0"),
            ErrorRow(
                #"{"broadcast": {"disabledBundleIds": "com.x"}}"#,
                #"broadcast.disabledBundleIds: expected an array of bundle IDs, got "com.x""#),
            ErrorRow(
                #"{"broadcast": {"disabledBundleIds": [""]}}"#,
                #"broadcast.disabledBundleIds: expected a non-empty bundle ID string, got """#),
            ErrorRow(
                #"{"broadcast": {"rejectStartEvent": true}}"#,
                #"broadcast.rejectStartEvent: unknown key (did you mean "rejectsStartEvent"?)"#, exact: false),
            // Virtual devices (docs/device-model.md §7)
            ErrorRow(
                #"{"devices": [{"token": "abcd", "appState": "background"}]}"#,
                "devices[0].topic: required for a virtual device (the app's bundle ID)"),
            ErrorRow(
                #"{"devices": [{"token": "abcd", "topic": "a", "appState": "asleep"}]}"#,
                "devices[0].appState: ", exact: false),
            ErrorRow(
                #"{"devices": [{"token": "abcd", "topic": "a", "categories": [{"identifier": "A"}, {"identifier": "A"}]}]}"#,
                "devices[0].categories[1].identifier: duplicate category identifier", exact: false),
            ErrorRow(
                #"{"devices": [{"token": "abcd", "topic": "a", "virtual": false, "installed": true}]}"#,
                "devices[0].virtual: false, but device-model fields are given"),
            ErrorRow(
                #"{"devices": [{"token": "ABCD"}, {"token": "abcd", "topic": "other"}]}"#,
                "devices[1].token: duplicate device token (also devices[0])"),
            ErrorRow(
                #"{"devices": [{"token": "abcd", "topic": ""}]}"#,
                #"devices[0].topic: expected a bundle ID or null, got """#),
            ErrorRow(
                #"{"devices": [{"token": "abcd", "environment": "dev"}]}"#,
                #"devices[0].environment: expected one of "sandbox", "production", got "dev""#),
            ErrorRow(
                #"{"devices": [{"token": "abcd", "unregisteredAt": "yesterday"}]}"#,
                #"devices[0].unregisteredAt: expected milliseconds since the Unix epoch (an integer from 0 to 253402300799999) or an ISO 8601 date-time from 1970 to 9999 such as "2024-05-01T12:00:00Z", got "yesterday""#
            ),
            // Issue 19 §5, one rule for both forms (ISO8601Timestamp's, as PUT /v1/devices applies it):
            // before the epoch or after 9999 is refused whether written as a date or as milliseconds.
            ErrorRow(
                #"{"devices": [{"token": "abcd", "unregisteredAt": "0001-01-01T00:00:00Z"}]}"#,
                #"devices[0].unregisteredAt: expected milliseconds"#, exact: false),
            ErrorRow(
                #"{"devices": [{"token": "abcd", "unregisteredAt": "1969-12-31T23:59:59.999Z"}]}"#,
                #"got "1969-12-31T23:59:59.999Z""#, exact: false),
            ErrorRow(
                #"{"devices": [{"token": "abcd", "unregisteredAt": 253402300800000}]}"#,
                "got 253402300800000", exact: false),
            ErrorRow(
                #"{"devices": [{"token": "abcd", "unregisteredAt": 9223372036854775807}]}"#,
                "got 9223372036854775807", exact: false),
            ErrorRow(
                #"{"devices": [{"token": "abcd", "unregisteredAt": "2024-05-01"}]}"#,
                #"got "2024-05-01""#, exact: false),
            ErrorRow(
                #"{"devices": [{"token": "abcd", "unregisteredAt": -5}]}"#,
                "devices[0].unregisteredAt: expected milliseconds", exact: false),
            ErrorRow(#"{"devices": [{"token": "abcd", "unregisteredAt": 1.5}]}"#, "got 1.5", exact: false),
            ErrorRow(
                #"{"devices": [{"token": "abcd", "expired": "no"}]}"#,
                #"devices[0].expired: expected true or false, got "no""#),
            // HTTP/2, workers, logging, stop
            ErrorRow(#"{"http2": []}"#, "http2: expected an object, got an array"),
            ErrorRow(
                #"{"http2": {"maxConcurrentStreams": 0}}"#,
                "http2.maxConcurrentStreams: expected an integer from 1 to 2147483647, got 0"),
            ErrorRow(
                #"{"http2": {"maxConcurrentStreams": 2147483648}}"#,
                "http2.maxConcurrentStreams: expected an integer from 1 to 2147483647, got 2147483648"),
            ErrorRow(
                #"{"http2": {"streamProfile": "apple"}}"#,
                #"http2.streamProfile: expected one of "fixed", "apple-observed", got "apple""#),
            ErrorRow(
                #"{"http2": {"maxStreams": 5}}"#,
                "http2.maxStreams: unknown key; valid keys here: maxConcurrentStreams, streamProfile"),
            ErrorRow(#"{"workers": -1}"#, "workers: expected an integer from 0 to 1024, got -1"),
            ErrorRow(#"{"workers": 5000}"#, "workers: expected an integer from 0 to 1024, got 5000"),
            ErrorRow(
                #"{"logLevel": "verbose"}"#,
                #"logLevel: expected one of "error", "warning", "info", "debug", got "verbose""#),
            ErrorRow(#"{"logLevel": "debgu"}"#, #"got "debgu" (did you mean "debug"?)"#, exact: false),
            ErrorRow(
                #"{"drainTimeoutSeconds": -1}"#,
                "drainTimeoutSeconds: expected a number of seconds from 0 to 3600, got -1"),
            ErrorRow(
                #"{"drainTimeoutSeconds": "5"}"#,
                #"drainTimeoutSeconds: expected a number of seconds from 0 to 3600, got "5""#),
            ErrorRow(#"{"drainTimeoutSeconds": 1e999}"#, "drainTimeoutSeconds: not valid JSON: ", exact: false),
            // Provider authentication
            ErrorRow(#"{"keys": 5}"#, "keys: expected a file path or null, got 5"),
            ErrorRow(#"{"readyFile": true}"#, "readyFile: expected a file path or null, got true"),
            ErrorRow(#"{"journal": 5}"#, "journal: expected a file path or null, got 5"),
            ErrorRow(#"{"journal": ""}"#, #"journal: expected a file path or null, got """#),
            ErrorRow(#"{"journalSync": "sometimes"}"#, "journalSync: expected", exact: false),
            ErrorRow(#"{"keys": ""}"#, #"keys: expected a file path or null, got """#),
            ErrorRow(#"{"keys": ["auth/keys.json"]}"#, "keys: expected a file path or null, got an array"),
            ErrorRow(#"{"keys": {"keys": []}}"#, "keys: expected a file path or null, got an object"),
            ErrorRow(
                #"{"clockOffsetSeconds": "4000"}"#,
                #"clockOffsetSeconds: expected a number of seconds within ±1e10 (negative moves the clock back), got "4000""#
            ),
            ErrorRow(
                #"{"clockOffsetSeconds": null}"#,
                "clockOffsetSeconds: expected a number of seconds within ±1e10 (negative moves the clock back), got null"
            ),
            ErrorRow(
                #"{"clockOffsetSeconds": true}"#,
                "clockOffsetSeconds: expected a number of seconds within ±1e10 (negative moves the clock back), got true"
            ),
            ErrorRow(#"{"clockOffsetSeconds": -1e999}"#, "clockOffsetSeconds: not valid JSON: ", exact: false),
        ]
        for row in rows {
            do {
                _ = try parseConfiguration(row.input)
                XCTFail("parsed: \(row.input)", line: row.line)
            } catch {
                XCTAssertNil(error.file, line: row.line)
                row.check(error.description)
            }
        }
    }

    // MARK: Files

    func testLoadResolvesRelativeTLSPathsAgainstTheFileDirectory() throws {
        let directory = try makeTemporaryDirectory(self)
        let file = directory.appendingPathComponent("gateway.json")
        try Data(
            """
            { "listeners": [
                { "name": "a", "port": 1, "tls": { "certificate": "certs/server.pem", "key": "/abs/key.pem" },
                  "clientCAs": ["auth/ca.pem", "/abs/ca.pem"] },
                { "name": "b", "port": 2 } ],
              "keys": "auth/keys.json" }
            """.utf8
        ).write(to: file)
        let configuration = try ConfigurationFile.load(path: file.path)
        XCTAssertEqual(
            configuration.listeners[0].tlsCertificatePath, directory.appendingPathComponent("certs/server.pem").path)
        XCTAssertEqual(configuration.listeners[0].tlsKeyPath, "/abs/key.pem")
        XCTAssertEqual(
            configuration.listeners[0].clientCAPaths,
            [directory.appendingPathComponent("auth/ca.pem").path, "/abs/ca.pem"])
        XCTAssertNil(configuration.listeners[1].tlsCertificatePath)
        XCTAssertEqual(configuration.listeners[1].clientCAPaths, [])
        XCTAssertEqual(configuration.keysManifestPath, directory.appendingPathComponent("auth/keys.json").path)

        let absolute = directory.appendingPathComponent("absolute.json")
        try Data(#"{"keys": "/etc/mock-apns/keys.json"}"#.utf8).write(to: absolute)
        XCTAssertEqual(try ConfigurationFile.load(path: absolute.path).keysManifestPath, "/etc/mock-apns/keys.json")
    }

    func testLoadErrorsNameTheFile() throws {
        let directory = try makeTemporaryDirectory(self)
        let file = directory.appendingPathComponent("bad.json")
        try Data(#"{"workers": "many"}"#.utf8).write(to: file)
        let rows: [ErrorRow<String>] = [
            ErrorRow(
                file.path, "\(file.path): line 1, column 13: workers: expected an integer from 0 to 1024, got \"many\""),
            ErrorRow(
                directory.appendingPathComponent("absent.json").path,
                "\(directory.appendingPathComponent("absent.json").path): no such file"),
            ErrorRow(directory.path, "\(directory.path): is a directory, not a configuration file"),
        ]
        for row in rows {
            do {
                _ = try ConfigurationFile.load(path: row.input)
                XCTFail("loaded \(row.input)", line: row.line)
            } catch {
                XCTAssertEqual(error.file, row.input, line: row.line)
                row.check(error.description)
            }
        }
    }

    /// An error about a value's type or range, found after parsing, says where the value is in the
    /// file; a missing key, where the object that lacks it starts.
    func testLoadErrorsSayWhereTheValueIs() throws {
        let directory = try makeTemporaryDirectory(self)
        let rows: [(String, String)] = [
            (
                "{\n  // a comment\n  \"maxRecords\": \"lots\",\n}",
                "line 3, column 17: maxRecords: expected an integer from 1 to 10000000, got \"lots\""
            ),
            (
                "{\"listeners\": [\n  {\"name\": \"a\", \"port\": 1},\n  {\"name\": \"b\", \"port\": 70000}]}",
                "line 3, column 25: listeners[1].port: expected an integer from 0 to 65535, got 70000"
            ),
        ]
        for (index, (text, expected)) in rows.enumerated() {
            let file = directory.appendingPathComponent("bad\(index).json")
            try Data(text.utf8).write(to: file)
            XCTAssertThrowsError(try ConfigurationFile.load(path: file.path)) { error in
                XCTAssertEqual((error as? ConfigurationError)?.description, "\(file.path): \(expected)", text)
            }
        }
    }

    func testErrorDescriptionLeavesOutAbsentParts() {
        XCTAssertEqual(ConfigurationError(field: "", message: "m").description, "m")
        XCTAssertEqual(ConfigurationError(field: "a.b", message: "m").description, "a.b: m")
        XCTAssertEqual(ConfigurationError(field: "a", message: "m", file: "f.json").description, "f.json: a: m")
    }
}
