import Broadcast
import Devices
import HTTPFields
import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import Faults
@testable import JSONSupport
@testable import Recording
@testable import TestFixtures

/// Keeps docs/control-api.openapi.json in step with the router's own route table.
final class ControlAPIOpenAPITests: XCTestCase {
    /// Accepts every provider token.
    private struct AcceptingChecker: ProviderTokenChecker {
        func check(authorization: String, topic: String?, listener: String?) -> ProviderTokenCheck? {
            ProviderTokenCheck(
                listener: "sandbox", environment: .sandbox, reason: nil, verdict: "verified", keyID: "K",
                teamID: "T", issuedAt: 1_796_028_000, keyConfigured: true, maximumAgeSeconds: 3600,
                minimumRefreshSeconds: 1200)
        }
    }

    /// Signs every `POST /v1/provider-tokens` token with a fixed text.
    private struct FixedMinter: ProviderTokenMinter {
        let keyID = "CONSOLEKEY"
        let teamID = "MOCKAPNS00"
        func token(issuedAt: Int64) -> String? { "h.c.s" }
    }

    /// Answers every `POST /v1/send` 200 at once.
    private struct AnsweringSender: PushSender {
        func send(_ push: ComposedPush, completion: @escaping @Sendable (ComposedPushAnswer) -> Void) {
            completion(ComposedPushAnswer(status: 200, headers: [HeaderField(name: "apns-id", value: "A")]))
        }
    }

    private static let documentPath = "docs/control-api.openapi.json"

    private struct DocumentMissing: Error {}

    /// The repository root: walk up from this file (its real path, then as given) to the first
    /// folder holding the document.
    private func document() throws -> [String: Any] {
        let given = URL(fileURLWithPath: #filePath)
        for start in [given.resolvingSymlinksInPath(), given] {
            var folder = start.deletingLastPathComponent()
            while folder.path != "/" {
                let candidate = folder.appendingPathComponent(Self.documentPath)
                if FileManager.default.fileExists(atPath: candidate.path) {
                    let data = try Data(contentsOf: candidate)
                    return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                }
                folder = folder.deletingLastPathComponent()
            }
        }
        XCTFail("\(Self.documentPath) not found above \(#filePath)")
        throw DocumentMissing()
    }

    private func resolve(_ item: Any, in doc: [String: Any]) -> [String: Any] {
        guard let object = item as? [String: Any] else { return [:] }
        guard let ref = object["$ref"] as? String else { return object }
        var node: Any = doc
        for part in ref.dropFirst(2).split(separator: "/") {
            node = (node as? [String: Any])?[String(part)] ?? [:]
        }
        return node as? [String: Any] ?? [:]
    }

    func testOperationsAndParametersMatchTheRouter() throws {
        let doc = try document()
        XCTAssertEqual((doc["openapi"] as? String)?.hasPrefix("3.0"), true)
        let paths = try XCTUnwrap(doc["paths"] as? [String: Any])
        var documented: [String: [String]] = [:]  // "GET /v1/x" -> query parameter names
        var pathParameters: [String: Set<String>] = [:]
        for (path, item) in paths {
            let item = try XCTUnwrap(item as? [String: Any])
            let shared = (item["parameters"] as? [Any] ?? []).map { resolve($0, in: doc) }
            for (method, operation) in item
            where ["get", "put", "post", "delete", "patch", "head", "options"].contains(method) {
                let operation = try XCTUnwrap(operation as? [String: Any])
                let parameters = shared + (operation["parameters"] as? [Any] ?? []).map { resolve($0, in: doc) }
                let key = "\(method.uppercased()) \(path)"
                documented[key] = parameters.filter { $0["in"] as? String == "query" }.compactMap {
                    $0["name"] as? String
                }.sorted()
                pathParameters[key] = Set(
                    parameters.filter { $0["in"] as? String == "path" }.compactMap { $0["name"] as? String })
                XCTAssertNotNil(
                    (operation["responses"] as? [String: Any])?["200"]
                        ?? (operation["responses"] as? [String: Any])?["201"],
                    "\(key) documents no success response")
            }
        }
        var served: [String: [String]] = [:]
        for route in ControlAPI.routes { served["\(route.method) \(route.path)"] = route.queryParameters.sorted() }
        XCTAssertEqual(Set(documented.keys), Set(served.keys), "operations differ")
        for (key, names) in served {
            XCTAssertEqual(documented[key], names, "query parameters of \(key)")
            let template = key.split(separator: " ")[1]
            let braces = Set(
                template.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) })
            XCTAssertEqual(pathParameters[key], braces, "path parameters of \(key)")
        }
    }

    static let sampleRegistration = DeviceRegistration(token: "ccdd", topic: "com.a", environment: .sandbox)

    /// A virtual device with one push stored and one held, so every key of its state renders.
    static func sampleLifecycle() -> DeviceLifecycle {
        var lifecycle = DeviceLifecycle(device: VirtualDevice(token: "ccdd", topic: "com.a", connectivity: .offline))
        _ = lifecycle.receive(DevicePush(id: 1, body: Array(#"{"aps":{"alert":"hi"}}"#.utf8)), at: 10)
        return lifecycle
    }

    /// A delivered notification with an interaction, so every lifecycle key renders.
    static func sampleNotification() -> DeviceBook.Notification {
        let book = DeviceBook(clock: { 100 })
        _ = try? book.put(
            VirtualDevice(token: "ccdd", topic: "com.a", appState: .foreground, foregroundPresentation: [.banner]))
        book.receive(DevicePush(id: 1, body: Array(#"{"aps":{"alert":"hi"}}"#.utf8)), token: "ccdd")
        _ = try? book.interact(.tap, with: 1, token: "ccdd")
        return book.notification(1)!
    }

    func testDeliveryAndDeviceSchemasListTheRenderedKeys() throws {
        let doc = try document()
        let schemas = try XCTUnwrap((doc["components"] as? [String: Any])?["schemas"] as? [String: Any])
        func properties(_ name: String) -> Set<String> {
            Set(((schemas[name] as? [String: Any])?["properties"] as? [String: Any] ?? [:]).keys)
        }
        // A record of a push to a virtual device gains the lifecycle keys (docs/device-model.md §7);
        // a broadcast's that reached devices, `fanOutDeliveries` (docs/broadcast.md §5).
        let lifecycle = Self.sampleNotification()
        XCTAssertEqual(
            properties("Delivery"),
            Set(StoreFixtures.object(encoding: StoreFixtures.record()).keys).union(lifecycle.jsonMembers().keys)
                .union(["fanOutDeliveries"]))
        XCTAssertEqual(
            properties("FanOutDelivery"), Set(lifecycle.fanOutMembers().keys),
            "a broadcast's copy on a device, as fanOutDeliveries shows it")
        let device = Self.sampleLifecycle()
        XCTAssertEqual(
            properties("DeviceState"),
            Set(StoreFixtures.object(encoding: device.jsonValue(registration: Self.sampleRegistration)).keys))
        XCTAssertEqual(
            properties("LifecycleEvent"),
            Set(
                StoreFixtures.object(
                    encoding: LifecycleEvent(notification: 1, state: .stored(.deviceOffline), at: 1, replaced: 2)
                        .jsonValue()
                ).keys
            )
            .union(["fromStorage", "replacedBy"]))
        XCTAssertEqual(
            properties("DeviceReaction"),
            Set(StoreFixtures.object(encoding: try XCTUnwrap(lifecycle.reaction).jsonValue()).keys))
        XCTAssertEqual(
            properties("Device"),
            Set(StoreFixtures.object(encoding: DeviceRegistration(token: "aa", environment: .sandbox).jsonValue()).keys)
        )
        XCTAssertEqual(properties("DeviceInput"), Set(DeviceBody.CodingKeys.allCases.map(\.stringValue)))
    }

    /// Every body schema lists its model's wire names and refuses other keys, as the decoder does.
    func testBodySchemasListTheDecodedKeysAndRefuseOthers() throws {
        let doc = try document()
        let schemas = try XCTUnwrap((doc["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let bodies: [(String, [String])] = [
            ("ClockInput", ClockBody.CodingKeys.allCases.map(\.stringValue)),
            ("DeviceInput", DeviceBody.CodingKeys.allCases.map(\.stringValue)),
            ("DevicePatchInput", DevicePatchBody.CodingKeys.allCases.map(\.stringValue)),
            ("InteractionInput", InteractionBody.CodingKeys.allCases.map(\.stringValue)),
            ("GoawayInput", GoawayBody.CodingKeys.allCases.map(\.stringValue)),
            ("ChannelInput", ChannelBody.CodingKeys.allCases.map(\.stringValue)),
            ("ListenerConditionsInput", ListenerConditionsUpdate.fields),
            ("GatewayInput", GatewayBody.CodingKeys.allCases.map(\.stringValue)),
            ("SendInput", SendBody.CodingKeys.allCases.map(\.stringValue)),
            ("ProviderTokenInput", ProviderTokenBody.CodingKeys.allCases.map(\.stringValue)),
            ("ProviderTokenMintInput", ProviderTokenMintBody.CodingKeys.allCases.map(\.stringValue)),
        ]
        for (name, keys) in bodies {
            let schema = try XCTUnwrap(schemas[name] as? [String: Any], name)
            XCTAssertEqual(Set((schema["properties"] as? [String: Any] ?? [:]).keys), Set(keys), name)
            XCTAssertEqual(schema["additionalProperties"] as? Bool, false, name)
        }
    }

    func testFaultAndConnectionSchemasListTheRenderedKeys() throws {
        let doc = try document()
        let schemas = try XCTUnwrap((doc["components"] as? [String: Any])?["schemas"] as? [String: Any])
        func properties(_ name: String) -> Set<String> {
            Set(((schemas[name] as? [String: Any])?["properties"] as? [String: Any] ?? [:]).keys)
        }
        // Every optional field set, so every key is rendered.
        let rule = FaultRule(
            id: "f1", match: FaultMatch(topic: "com.a"), lifetime: .times(1), action: .noResponse, description: "d")
        XCTAssertEqual(properties("FaultRule"), Set(StoreFixtures.object(encoding: rule).keys))
        let status = FaultRuleStatus(
            rule: rule, matched: 1, fired: 1, spent: false, sickConnections: [3], rampStartedAt: 5)
        XCTAssertEqual(properties("FaultRuleStatus"), Set(StoreFixtures.object(encoding: status).keys))
        XCTAssertEqual(
            properties("Connection"), Set(StoreFixtures.object(encoding: FakeConnectionDirectory.summary(id: 1)).keys))
        XCTAssertEqual(properties("GoawayInput"), Set(GoawayBody.CodingKeys.allCases.map(\.stringValue)))
        XCTAssertEqual(properties("ScenarioInput"), Set(ControlAPI.scenarioBodyKeys))
        let scenarios =
            ((schemas["ScenarioInput"] as? [String: Any])?["properties"] as? [String: Any])?["scenario"]
            as? [String: Any]
        XCTAssertEqual(scenarios?["enum"] as? [String], FaultScenario.allCases.map(\.rawValue))
        let types =
            ((schemas["FaultAction"] as? [String: Any])?["properties"] as? [String: Any])?["type"] as? [String: Any]
        XCTAssertEqual(types?["enum"] as? [String], FaultAction.typeNames)
    }

    func testConnectionEventSchemasListTheRenderedKeys() throws {
        let doc = try document()
        let schemas = try XCTUnwrap((doc["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let event = try XCTUnwrap(schemas["ConnectionEvent"] as? [String: Any])
        let properties = try XCTUnwrap(event["properties"] as? [String: Any])
        let sample = StoreFixtures.object(encoding: EventFixtures.event())
        XCTAssertEqual(Set(properties.keys), Set(sample.keys))
        XCTAssertEqual(Set(event["required"] as? [String] ?? []), Set(sample.keys))
        XCTAssertEqual((properties["kind"] as? [String: Any])?["enum"] as? [String], ConnectionEventKind.names)
        XCTAssertEqual((properties["origin"] as? [String: Any])?["enum"] as? [String], ConnectionEventOrigin.names)
        // The details of every kind are documented.
        let actions: [ConnectionEventAction] = [
            .opened(alpn: "h2", tls: true, maxConcurrentStreams: 1),
            .goaway(errorCode: 0, lastStreamID: 0, debugData: [], closeAfterMilliseconds: 0), .close(when: nil),
            .drain(errorCode: 0, lastStreamID: 0, debugData: [], maxMilliseconds: 5),
            .reset(when: nil), .settings(maxConcurrentStreams: 1, previous: 2), .windowStallStart(milliseconds: 1),
            .windowStallEnd(milliseconds: 1, withheldBytes: 1), .handshakeDelay(milliseconds: 1), .silentAccept,
            .refused,
            .closed(requests: 1, ageMilliseconds: 1), .blackhole,
            .legacyOpened(transport: "binary", tls: true, certificateSubject: nil, topic: nil),
            .legacyClosed(transport: "binary", reason: "peer-closed", notifications: 0, ageMilliseconds: 1),
            .errorPacket(status: 8, statusName: "Invalid token", identifier: 1), .feedbackSent(tuples: 0, tokens: []),
        ]
        XCTAssertEqual(Set(actions.map(\.kind)), Set(ConnectionEventKind.allCases))
        var rendered = Set<String>()
        for action in actions {
            let details = StoreFixtures.object(encoding: EventFixtures.event(action))["details"] as? [String: Any]
            rendered.formUnion(details?.keys ?? [:].keys)
        }
        let documented = ((schemas["ConnectionEventDetails"] as? [String: Any])?["properties"] as? [String: Any] ?? [:])
            .keys
        XCTAssertEqual(Set(documented), rendered)
    }

    /// Calls every route once and checks the answer's keys against the schema the document
    /// gives for that status, so response shapes cannot drift either: every key rendered is
    /// documented, and every key the schema requires is rendered.
    func testEveryResponseShapeMatchesItsSchema() throws {
        let doc = try document()
        let paths = try XCTUnwrap(doc["paths"] as? [String: Any])
        let api = ControlAPI(
            store: DeliveryStore(),
            registry: DeviceRegistry(devices: [
                DeviceRegistration(token: "aabb", environment: .sandbox)
            ]),
            connections: FakeConnectionDirectory([
                FakeConnectionDirectory.summary(id: 1), FakeConnectionDirectory.summary(id: 2),
                FakeConnectionDirectory.summary(id: 3),
            ]),
            listenerConditions: ListenerConditionsInForce(listeners: [("sandbox", .sandbox)]),
            channels: ChannelStore(makeID: { "AAAA" }),
            gateways: FakeGatewayDirectory(count: 1),
            sender: AnsweringSender(),
            tokenChecker: AcceptingChecker(),
            tokenMinter: FixedMinter(),
            status: { StoreFixtures.status() })
        api.store.append(StoreFixtures.record())
        // A virtual device with a shown notification (seq 99, no record), for PATCH and interactions.
        api.registry.put(Self.sampleRegistration)
        try api.devices.put(VirtualDevice(token: "ccdd", topic: "com.a"))
        api.devices.receive(DevicePush(id: 99, body: Array(#"{"aps":{"alert":"hi"}}"#.utf8)), token: "ccdd")
        api.events.append(EventFixtures.event())
        try api.faults.add(FaultRule(id: "sample", action: .noResponse, description: "listed"))
        let samples: [String: (target: String, body: String)] = [
            "/v1/deliveries/{seq}": ("/v1/deliveries/1", ""),
            "/v1/devices/{token}": ("/v1/devices/aabb", #"{"environment":"sandbox"}"#),
            "/v1/deliveries/wait": ("/v1/deliveries/wait?timeoutMs=0", ""),
            "/v1/events/wait": ("/v1/events/wait?timeoutMs=0", ""),
            "/v1/clock": ("/v1/clock", #"{"offsetSeconds":0}"#),
            "/v1/faults": ("/v1/faults", #"{"action":{"type":"respond","reason":"ServiceUnavailable"}}"#),
            "/v1/faults/{id}": ("/v1/faults/sample", ""),
            "/v1/gateways/{id}": ("/v1/gateways/g1", ""),
            "/v1/channels": ("/v1/channels", #"{"bundleId":"com.a","messageStoragePolicy":0}"#),
            "/v1/channels/{id}": ("/v1/channels/AAAA", ""),
            "/v1/connections/{id}/goaway": ("/v1/connections/1/goaway", #"{"errorCode":"NO_ERROR"}"#),
            "/v1/connections/{id}/close": ("/v1/connections/2/close", ""),
            "/v1/connections/{id}/reset": ("/v1/connections/3/reset", ""),
            "/v1/connections/{id}/blackhole": ("/v1/connections/1/blackhole", ""),
            "/v1/connections/{id}/drain": ("/v1/connections/1/drain", #"{"maxMs":100}"#),
            "/v1/listeners/{name}/conditions": (
                "/v1/listeners/sandbox/conditions", #"{"handshakeDelayMs":100,"refuseMs":50}"#
            ),
        ]
        // Deletions last, so the gets still find what they ask for; of those, one item before all.
        func order(_ route: ControlRoute) -> Int { route.method != "DELETE" ? 0 : route.path.contains("{") ? 1 : 2 }
        let methodSamples: [String: (target: String, body: String)] = [
            "PATCH /v1/devices/{token}": ("/v1/devices/ccdd", #"{"appState":"foreground"}"#),
            "GET /v1/delivery-log/{id}": ("/v1/delivery-log/6F1D5D8A-8E1B-4C0A-9D1E-6F8B1A2C3D4E", ""),
            "GET /v1/deliveries/{seq}/apns": ("/v1/deliveries/1/apns", ""),
            "GET /v1/deliveries/{seq}/preview": ("/v1/deliveries/1/preview?appState=foreground", ""),
            "POST /v1/verify": ("/v1/verify", "{}"),
            "POST /v1/send": ("/v1/send", #"{"token":"aabb","payload":{"aps":{}}}"#),
            "GET /console/{asset}": ("/console/console.js", ""),
            "POST /v1/validate/provider-token": ("/v1/validate/provider-token", #"{"token":"a.b.c"}"#),
            "GET /v1/verify/teardown": ("/v1/verify/teardown?after=1000000", ""),
            "POST /v1/devices/{token}/interactions": (
                "/v1/devices/ccdd/interactions", #"{"notification":99,"type":"tap"}"#
            ),
        ]
        for route in ControlAPI.routes.sorted(by: { order($0) < order($1) }) {
            let sample = methodSamples["\(route.method) \(route.path)"] ?? samples[route.path] ?? (route.path, "")
            let result = api.handle(
                ControlRequest(method: route.method, target: sample.target, body: Array(sample.body.utf8)))
            let operation = ((paths[route.path] as? [String: Any])?[route.method.lowercased()] as? [String: Any]) ?? [:]
            // A live stream answers 200 in its format's media type, which is documented.
            if case .stream(let stream) = result {
                let ok = (operation["responses"] as? [String: Any])?["200"] as? [String: Any]
                XCTAssertNotNil(
                    (ok?["content"] as? [String: Any])?[stream.format.contentType],
                    "\(route.method) \(route.path) streams \(stream.format.contentType), which is not documented")
                continue
            }
            guard case .response(let response) = result else {
                XCTFail("\(route.method) \(route.path) waited")
                continue
            }
            let documented = (operation["responses"] as? [String: Any])?[String(response.status)] as? [String: Any]
            // An answer that is not JSON (GET /metrics) names its media type among the documented ones.
            if response.contentType != ControlResponse.contentType {
                let media = String(response.contentType.split(separator: ";")[0])
                XCTAssertNotNil(
                    (documented?["content"] as? [String: Any])?[media],
                    "\(route.method) \(route.path) answered \(response.status) as \(media), which is not documented")
                XCTAssertLessThan(response.status, 300, "\(route.method) \(route.path): the sample should succeed")
                continue
            }
            let schemaRef = ((documented?["content"] as? [String: Any])?["application/json"] as? [String: Any])?[
                "schema"]
            let schema = resolve(schemaRef ?? [:], in: doc)
            let keys = Set(((schema["properties"] as? [String: Any]) ?? [:]).keys)
            let required = Set(schema["required"] as? [String] ?? [])
            let rendered = Set(StoreFixtures.object(response.body).keys)
            XCTAssertFalse(
                keys.isEmpty, "\(route.method) \(route.path) answered \(response.status), which has no schema")
            XCTAssertEqual(
                rendered.subtracting(keys), [],
                "undocumented keys: \(route.method) \(route.path) answered \(response.status)")
            XCTAssertEqual(
                required.subtracting(rendered), [],
                "missing keys: \(route.method) \(route.path) answered \(response.status)")
            XCTAssertLessThan(response.status, 300, "\(route.method) \(route.path): the sample should succeed")
        }
        // And the error shape.
        guard case .response(let notFound) = api.handle(ControlRequest(method: "GET", path: "/nope")) else {
            return XCTFail()
        }
        let error = resolve(["$ref": "#/components/schemas/Error"], in: doc)
        XCTAssertEqual(
            Set(((error["properties"] as? [String: Any]) ?? [:]).keys), Set(StoreFixtures.object(notFound.body).keys))
    }
}
