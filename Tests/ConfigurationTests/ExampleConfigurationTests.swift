import Broadcast
import Devices
import Foundation
import JSONInput
import TestSupport
import XCTest

@testable import APNsCore
@testable import Configuration
@testable import Faults
@testable import JSONSupport

/// `fixtures/mock-apns.example.json` is documentation: it must parse, and use every key.
final class ExampleConfigurationTests: XCTestCase {
    private func exampleURL() throws -> URL {
        let url = try XCTUnwrap(
            RepositoryPaths.fixture("mock-apns.example.json"), "MockAPNs checkout not found from \(#filePath)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), url.path)
        return url
    }

    func testTheExampleParses() throws {
        let url = try exampleURL()
        let configuration = try ConfigurationFile.load(path: url.path)

        XCTAssertEqual(configuration.listeners.map(\.name), ["sandbox", "production"])
        XCTAssertEqual(configuration.listeners.map(\.address), ["127.0.0.1:2197", "127.0.0.1:2198"])
        XCTAssertEqual(configuration.listeners.map(\.environment), [.sandbox, .production])
        XCTAssertEqual(configuration.listeners.map(\.alpn), [.optional, .required])
        XCTAssertNil(configuration.listeners[0].tlsCertificatePath)
        // The production listener uses the repository's test certificate, found relative to the file.
        for path in [configuration.listeners[1].tlsCertificatePath, configuration.listeners[1].tlsKeyPath] {
            let path = try XCTUnwrap(path)
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "missing \(path)")
        }
        XCTAssertEqual(configuration.control, ControlConfiguration(host: "127.0.0.1", port: 8197))

        // Authentication: the production listener plays Apple (strict) and trusts the repository's
        // test client CA; the key manifest is the repository's test keys. Both found relative to the file.
        XCTAssertEqual(configuration.listeners.map(\.auth), [.permissive, .strict])
        XCTAssertEqual(configuration.listeners[0].clientCAPaths, [])
        XCTAssertEqual(
            configuration.listeners[0].conditions,
            ListenerConditionsUpdate(handshakeDelayMs: 0, silent: false, refuseMs: 0))
        XCTAssertEqual(configuration.listeners[1].clientCAPaths.count, 1)
        let manifest = try XCTUnwrap(configuration.keysManifestPath)
        for path in configuration.listeners[1].clientCAPaths + [manifest] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "missing \(path)")
        }
        XCTAssertEqual(
            URL(fileURLWithPath: manifest).standardizedFileURL,
            url.deletingLastPathComponent().appendingPathComponent("auth/keys.json").standardizedFileURL)
        XCTAssertEqual(configuration.clockOffsetSeconds, 0)

        XCTAssertEqual(configuration.devices.count, 3)
        // The third is a virtual device (docs/device-model.md §7); the first two are not.
        XCTAssertEqual(configuration.virtualDevices.map(\.token), [configuration.devices[2].token])
        XCTAssertEqual(configuration.virtualDevices.first?.connectivity, .offline)
        XCTAssertEqual(configuration.virtualDevices.first?.categories.first?.actions.count, 2)
        XCTAssertEqual(configuration.devices[0].unregisteredAt, 1_714_564_800_000)
        XCTAssertFalse(configuration.devices[0].expired)
        XCTAssertEqual(
            configuration.devices[1].token, "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90")
        XCTAssertEqual(configuration.devices[1].environment, .production)
        XCTAssertTrue(configuration.devices[1].expired)

        // Faults: the explicit sequence rule, then the scenario's rule.
        XCTAssertEqual(configuration.faults.map(\.id), ["retry-demo", nil])
        XCTAssertEqual(
            configuration.faults[0].match.token, "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00")
        let respond503 = FaultStep.action(.respond(FaultResponse(status: 503, reason: .serviceUnavailable)))
        XCTAssertEqual(configuration.faults[0].action, .sequence([respond503, respond503, .pass]))
        XCTAssertEqual(configuration.faults[1].description, "scenario apns-outage")
        guard case .until = configuration.faults[1].lifetime else {
            return XCTFail("the outage should have a short window, got \(configuration.faults[1].lifetime)")
        }

        // The legacy binary gateway and feedback service, each on Apple's port on its own loopback address.
        XCTAssertEqual(configuration.binaryListeners.map(\.address), ["127.0.0.2:2195", "127.0.0.3:2196"])
        XCTAssertEqual(configuration.binaryListeners.map(\.name), ["binary-sandbox", "feedback"])

        // Apart from listeners, control, devices, keys, faults and the binary listeners, the example
        // spells out the defaults.
        var rest = configuration
        rest.binaryListeners = []
        rest.listeners = Configuration().listeners
        rest.devices = []
        rest.virtualDevices = []
        rest.keysManifestPath = nil
        rest.faults = []
        // Broadcast: one bundle ID without the capability, the rest Apple's defaults.
        XCTAssertEqual(configuration.broadcast.disabledBundleIDs, ["com.example.nobroadcast"])
        rest.broadcast.disabledBundleIDs = []
        // One channel made at start, the virtual device subscribed to it (docs/broadcast.md §4).
        XCTAssertEqual(
            configuration.broadcast.channels,
            [ConfiguredChannel(id: "dHN0LXNyY2gtY2hubA==", bundleID: "com.example.app")])
        XCTAssertEqual(configuration.virtualDevices.map(\.channels), [["dHN0LXNyY2gtY2hubA=="]])
        rest.broadcast.channels = []
        XCTAssertEqual(rest, Configuration())
    }

    func testTheExampleUsesEveryKey() throws {
        let document = try ConfigurationFile.document(Array(Data(contentsOf: exampleURL())))
        var used: [String: Set<String>] = [:]
        func collect(_ value: JSONNode, section: String) {
            switch value {
            case .object(let members):
                for (key, member) in members {
                    used[section, default: []].insert(key)
                    collect(member, section: section.isEmpty ? key : "\(section).\(key)")
                }
            case .array(let elements):
                elements.forEach { collect($0, section: section) }
            default:
                break
            }
        }
        collect(document, section: "")
        let expected: [(String, [String])] = [
            ("", ConfigurationFile.topLevelKeys),
            ("listeners", ConfigurationFile.listenerKeys),
            ("listeners.tls", ConfigurationFile.tlsKeys),
            ("listeners.conditions", ConfigurationFile.conditionsKeys),
            ("control", ConfigurationFile.controlKeys),
            ("devices", ConfigurationFile.deviceKeys),
            ("deviceModel", ConfigurationFile.deviceModelOptionKeys),
            ("broadcast", ConfigurationFile.broadcastKeys),
            ("http2", ConfigurationFile.http2Keys),
            ("scenarios", ConfigurationFile.scenarioKeys),
            ("binary", ConfigurationFile.binaryListenerKeys),
            ("feedback", ["listen", "environment", "certificateRequired"]),
        ]
        for (section, keys) in expected {
            XCTAssertEqual(used[section, default: []], Set(keys), "section \(section.isEmpty ? "top level" : section)")
        }
    }

    func testTheRepositoryRootIsFoundThroughSymlinks() throws {
        let root = try XCTUnwrap(RepositoryPaths.find())
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        XCTAssertTrue(manifest.contains("name: \"MockAPNs\""))
    }
}
