import APNsCore
import Devices
import Foundation
import Synchronization
import XCTest

@testable import ControlAPI
@testable import Recording
@testable import TestFixtures

/// The virtual devices on the control API (docs/device-model.md §7): PUT with device-model fields,
/// GET with the state, PATCH, the clock, records joined with their lifecycle, interactions.
final class ControlAPIDevicesTests: XCTestCase {
    private typealias F = StoreFixtures
    static let token = String(repeating: "ab", count: 32)
    static let other = String(repeating: "cd", count: 32)

    final class Clock: Sendable {
        let seconds = Mutex<Double>(1_796_000_000)
        func now() -> Double { seconds.withLock { $0 } }
    }

    private func makeAPI() -> ControlAPI {
        ControlAPI(
            store: DeliveryStore(capacity: 100),
            registry: DeviceRegistry(devices: [DeviceRegistration(token: Self.other, environment: .sandbox)]),
            clock: { 1_796_000_000 }, credentialClock: ServerClock(offsetSeconds: 0), status: { F.status() })
    }

    @discardableResult
    private func call(
        _ api: ControlAPI, _ method: String, _ target: String, _ body: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) -> (Int, [String: Any]) {
        let response = api.respond(method, target, body: body, file: file, line: line)
        return (response.status, F.object(response.body))
    }

    /// A push the gateway accepted for `token`, recorded and received by the book as the push path does.
    @discardableResult
    private func push(
        _ api: ControlAPI, token: String = ControlAPIDevicesTests.token, collapseID: String? = nil,
        payload: String = #"{"aps":{"alert":"hi"}}"#, expiration: Int64? = nil
    ) -> UInt64 {
        var record = F.record(token: token, collapseID: collapseID, payload: Array(payload.utf8))
        record.verdict.expiration = expiration
        let seq = api.store.append(record)
        api.devices.receive(DevicePush(id: seq, verdict: record.verdict, body: record.payload), token: token)
        return seq
    }

    private static let virtualBody = #"{"environment":"sandbox","topic":"com.example.app","connectivity":"offline"}"#

    /// docs/device-model.md §2.3: `installed: false` makes the token unregistered since then (the
    /// gateway answers 410 `Unregistered` with that timestamp); installed again clears it; with
    /// `removedApp: discarded` the registration is left alone.
    func testAnAppRemovedMakesTheTokenUnregistered() throws {
        let api = makeAPI()
        call(api, "PUT", "/v1/devices/\(Self.token)", Self.virtualBody)
        let before = Int64(api.devices.now() * 1000)
        let (status, json) = call(api, "PATCH", "/v1/devices/\(Self.token)", #"{"installed":false}"#)
        XCTAssertEqual(status, 200)
        let since = try XCTUnwrap(api.registry.lookup(Self.token)?.unregisteredAt)
        XCTAssertGreaterThanOrEqual(since, before)
        XCTAssertEqual(json["unregisteredAt"] as? Int, Int(since))
        call(api, "PATCH", "/v1/devices/\(Self.token)", #"{"appState":"foreground"}"#)
        XCTAssertEqual(api.registry.lookup(Self.token)?.unregisteredAt, since)
        call(api, "PATCH", "/v1/devices/\(Self.token)", #"{"installed":true}"#)
        XCTAssertNil(api.registry.lookup(Self.token)?.unregisteredAt)
        let registered =
            #"{"environment":"sandbox","topic":"com.example.app","installed":false}"#
        call(api, "PUT", "/v1/devices/\(Self.other)", registered)
        XCTAssertNotNil(api.registry.lookup(Self.other)?.unregisteredAt)

        let discarding = ControlAPI(
            store: DeliveryStore(capacity: 100), registry: DeviceRegistry(), clock: { 1_796_000_000 },
            credentialClock: ServerClock(offsetSeconds: 0),
            devices: DeviceBook(options: DeviceModelOptions(removedApp: .discarded), clock: { 1_796_000_000 }),
            status: { F.status() })
        XCTAssertEqual(call(discarding, "PUT", "/v1/devices/\(Self.token)", registered).0, 201)
        XCTAssertNil(discarding.registry.lookup(Self.token)?.unregisteredAt)
    }

    /// The moment an app is removed is on the clock the gateway's registry rule reads (the wall
    /// clock), whatever `/v1/clock`'s offset: with the clock 1000 s ahead, the token is
    /// unregistered from now, not from 1000 s in the future (which the rule would take as a
    /// moment still to come and answer 200).
    func testAnAppRemovedIsUnregisteredOnTheGatewaysClock() throws {
        let api = ControlAPI(
            store: DeliveryStore(capacity: 100), registry: DeviceRegistry(), clock: { 1_796_000_000 },
            credentialClock: ServerClock(offsetSeconds: 1000), status: { F.status() })
        call(api, "PUT", "/v1/devices/\(Self.token)", Self.virtualBody)
        call(api, "PATCH", "/v1/devices/\(Self.token)", #"{"installed":false}"#)
        let since = try XCTUnwrap(api.registry.lookup(Self.token)?.unregisteredAt)
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        XCTAssertLessThanOrEqual(abs(since - wall), 5_000, "unregisteredAt \(since) is not now (\(wall))")
    }

    /// `PUT /v1/clock` keeps the clock within 1970 to 9999, naming the field.
    func testTheClockStaysWithinWritableDates() {
        let api = makeAPI()
        for body in [#"{"offsetSeconds":-1e10}"#, #"{"offsetSeconds":-2e9}"#] {
            let (status, json) = call(api, "PUT", "/v1/clock", body)
            XCTAssertEqual(status, 400, body)
            XCTAssertTrue((json["error"] as? String ?? "").hasPrefix("offsetSeconds:"), "\(json)")
        }
        XCTAssertEqual(call(api, "PUT", "/v1/clock", #"{"offsetSeconds":-86400}"#).0, 200)
    }

    /// `GET /v1/devices` pages in token order: `limit` (default 1000) and `after` (the last token seen).
    func testTheDeviceListPagesInTokenOrder() {
        let api = makeAPI()
        let tokens = ["01", "02", "03", "04"].map { String(repeating: $0, count: 32) }
        for token in tokens.reversed() {
            call(api, "PUT", "/v1/devices/\(token)", #"{"environment":"sandbox","topic":"com.a","virtual":true}"#)
        }
        let list = { (query: String) -> ([String], [String: Any]) in
            let json = self.call(api, "GET", "/v1/devices\(query)").1
            return (((json["devices"] as? [[String: Any]]) ?? []).compactMap { $0["token"] as? String }, json)
        }
        let all = tokens + [Self.other]
        XCTAssertEqual(list("").0, all)
        XCTAssertEqual(list("").1["more"] as? Bool, false)
        var (page, json) = list("?limit=2")
        XCTAssertEqual(page, Array(tokens[0..<2]))
        XCTAssertEqual(json["count"] as? Int, 2)
        XCTAssertEqual(json["total"] as? Int, 5)
        XCTAssertEqual(json["more"] as? Bool, true)
        XCTAssertEqual((json["devices"] as? [[String: Any]])?.first?["virtual"] as? Bool, true)
        (page, json) = list("?limit=2&after=\(tokens[1].uppercased())")
        XCTAssertEqual(page, Array(tokens[2..<4]))
        XCTAssertEqual(json["more"] as? Bool, true)
        (page, json) = list("?after=\(tokens[3])")
        XCTAssertEqual(page, [Self.other])
        XCTAssertEqual(json["more"] as? Bool, false)
        XCTAssertEqual(ControlAPI.defaultDeviceLimit, 1000)
        for (query, message) in [("?limit=-1", "limit must be at least 0"), ("?after=xyz", "after: token must be")] {
            let (status, error) = call(api, "GET", "/v1/devices\(query)")
            XCTAssertEqual(status, 400, query)
            XCTAssertTrue((error["error"] as? String ?? "").contains(message), "\(query): \(error)")
        }
    }

    func testAPlainRegistrationKeepsTodaysJSON() {
        let api = makeAPI()
        let (status, json) = call(
            api, "PUT", "/v1/devices/\(Self.token)", #"{"environment":"sandbox","topic":"com.a"}"#)
        XCTAssertEqual(status, 201)
        XCTAssertEqual(Set(json.keys), ["token", "topic", "environment", "unregisteredAt", "expired"])
        XCTAssertTrue(api.devices.isEmpty)
        push(api)
        XCTAssertNil(call(api, "GET", "/v1/deliveries/1").1["lifecycle"])
    }

    func testAVirtualDeviceIsRegisteredAndShowsItsState() {
        let api = makeAPI()
        let (status, json) = call(api, "PUT", "/v1/devices/\(Self.token)", Self.virtualBody)
        XCTAssertEqual(status, 201)
        XCTAssertEqual(json["virtual"] as? Bool, true)
        XCTAssertEqual(json["connectivity"] as? String, "offline")
        XCTAssertEqual(json["appState"] as? String, "background")
        XCTAssertEqual(json["topic"] as? String, "com.example.app")
        XCTAssertTrue(json["stored"] is NSNull)
        let seq = push(api)
        let (_, device) = call(api, "GET", "/v1/devices/\(Self.token)")
        XCTAssertEqual((device["stored"] as? [String: Any])?["notification"] as? Int, Int(seq))
        XCTAssertEqual((device["stored"] as? [String: Any])?["cause"] as? String, "deviceOffline")
        XCTAssertEqual(device["delivered"] as? [Int], [])
        // `"virtual": true` alone registers one with every default.
        XCTAssertEqual(
            call(api, "PUT", "/v1/devices/\(Self.other)", #"{"environment":"sandbox","topic":"b","virtual":true}"#).1[
                "connectivity"] as? String, "online")
    }

    func testBadRegistrationsNameTheFieldAndChangeNothing() {
        let api = makeAPI()
        let path = "/v1/devices/\(Self.token)"
        let rows: [(String, String)] = [
            (#"{"environment":"sandbox","appState":"active"}"#, "topic: required for a virtual device"),
            (#"{"environment":"sandbox","topic":"a","appState":"sleeping"}"#, "appState"),
            (#"{"environment":"sandbox","topic":"a","virtual":false,"appState":"background"}"#, "virtual: false"),
            (#"{"environment":"sandbox","topic":"a","virtual":1}"#, "virtual: expected true or false"),
            (
                #"{"environment":"sandbox","topic":"a","categories":[{"identifier":"A"},{"identifier":"A"}]}"#,
                "categories[1].identifier: duplicate category identifier"
            ),
            (#"{"environment":"sandbox","topic":"a","settings":{"alerts":false}}"#, "settings.alerts: unknown key"),
            (
                #"{"environment":"sandbox","topic":"a","foregroundPresentation":["list","list"]}"#,
                "foregroundPresentation[1]: duplicate presentation option"
            ),
            (
                #"{"environment":"sandbox","topic":"a","categories":[{"identifier":"A","actions":[{"identifier":"X","title":"x","options":["destructive","destructive"]}]}]}"#,
                "categories[0].actions[0].options[1]: duplicate option"
            ),
        ]
        for (body, text) in rows {
            let (status, json) = call(api, "PUT", path, body)
            XCTAssertEqual(status, 400, body)
            XCTAssertTrue((json["error"] as? String ?? "").contains(text), "\(json["error"] ?? "") lacks \(text)")
            XCTAssertEqual(call(api, "GET", path).0, 404, body)
        }
        // A registered virtual device keeps its environment.
        XCTAssertEqual(call(api, "PUT", path, Self.virtualBody).0, 201)
        let moved = Self.virtualBody.replacingOccurrences(of: "sandbox", with: "production")
            .replacingOccurrences(of: "offline", with: "online")
        let (status, json) = call(api, "PUT", path, moved)
        XCTAssertEqual(status, 400)
        XCTAssertTrue((json["error"] as? String ?? "").hasPrefix("environment:"), "\(json)")
        let after = call(api, "GET", path).1
        XCTAssertEqual(after["environment"] as? String, "sandbox")
        XCTAssertEqual(after["connectivity"] as? String, "offline")
    }

    func testPatchChangesAVirtualDeviceAndComingOnlineDeliversWhatIsStored() {
        let api = makeAPI()
        let path = "/v1/devices/\(Self.token)"
        XCTAssertEqual(call(api, "PATCH", path, #"{"connectivity":"online"}"#).0, 404)
        XCTAssertEqual(call(api, "PATCH", "/v1/devices/\(Self.other)", #"{"connectivity":"online"}"#).0, 409)
        call(api, "PUT", path, Self.virtualBody)
        let first = push(api, collapseID: "c")
        let second = push(api, collapseID: "c")
        for (body, text) in [
            (#"{"connectivity":"onlin"}"#, "connectivity"), (#"{}"#, "expected at least one of"),
            (#"{"conectivity":"online"}"#, #"did you mean "connectivity""#),
            (#"{"topic":"x"}"#, "unknown key"),
            (#"{"connectivity":null}"#, "connectivity: expected a value, got null"),
        ] {
            let (status, json) = call(api, "PATCH", path, body)
            XCTAssertEqual(status, 400, body)
            XCTAssertTrue((json["error"] as? String ?? "").contains(text), "\(json) lacks \(text)")
        }
        XCTAssertEqual(call(api, "GET", path).1["connectivity"] as? String, "offline")
        let (status, json) = call(api, "PATCH", path, #"{"connectivity":"online","appState":"foreground"}"#)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["connectivity"] as? String, "online")
        XCTAssertEqual(json["delivered"] as? [Int], [Int(second)])
        // The records carry the lifecycle: the first was replaced, the second delivered from storage.
        let firstRecord = call(api, "GET", "/v1/deliveries/\(first)").1
        XCTAssertEqual(firstRecord["lifecycleState"] as? String, "Replaced")
        let events = firstRecord["lifecycle"] as? [[String: Any]] ?? []
        XCTAssertEqual(events.last?["replacedBy"] as? Int, Int(second))
        let secondRecord = call(api, "GET", "/v1/deliveries/\(second)").1
        XCTAssertEqual(secondRecord["lifecycleState"] as? String, "Delivered to Device (From Storage)")
        XCTAssertEqual(
            ((secondRecord["device"] as? [String: Any])?["presentation"] as? [String: Any])?["shown"] as? Bool, true)
        // The list joins them too, and leaves other records as they were.
        push(api, token: Self.other)
        let list = call(api, "GET", "/v1/deliveries").1["deliveries"] as? [[String: Any]] ?? []
        XCTAssertEqual(
            list.map { $0["lifecycleState"] as? String }, ["Replaced", "Delivered to Device (From Storage)", nil])
        XCTAssertEqual(list.map { $0["seq"] as? Int }, [1, 2, 3])
    }

    func testMovingTheClockForwardExpiresAStoredPush() {
        let api = makeAPI()
        call(api, "PUT", "/v1/devices/\(Self.token)", Self.virtualBody)
        let expiration = Int64(api.credentialClock.now()) + 600
        let seq = push(api, expiration: expiration)
        XCTAssertEqual(
            call(api, "GET", "/v1/deliveries/\(seq)").1["lifecycleState"] as? String, "Stored - Device Offline")
        XCTAssertEqual(call(api, "PUT", "/v1/clock", #"{"offsetSeconds":3600}"#).0, 200)
        let record = call(api, "GET", "/v1/deliveries/\(seq)").1
        XCTAssertEqual(record["lifecycleState"] as? String, "Discarded - Expired (From Storage)")
        let last = (record["lifecycle"] as? [[String: Any]])?.last
        XCTAssertEqual(last?["atSeconds"] as? Double, Double(expiration))
        XCTAssertTrue(call(api, "GET", "/v1/devices/\(Self.token)").1["stored"] is NSNull)
    }

    func testInteractionsRecordTheResponse() {
        let api = makeAPI()
        let body =
            #"{"environment":"sandbox","topic":"com.example.app","appState":"notRunning","#
            + #""categories":[{"identifier":"MEETING","actions":[{"identifier":"ACCEPT","title":"Accept","options":["foreground"]}]}]}"#
        XCTAssertEqual(call(api, "PUT", "/v1/devices/\(Self.token)", body).0, 201)
        let seq = push(api, payload: #"{"aps":{"alert":"Meet?","category":"MEETING"}}"#)
        let path = "/v1/devices/\(Self.token)/interactions"
        for (body, status, text) in [
            (
                #"{"notification":\#(seq),"type":"action","action":"ACCEPTT"}"#, 400,
                #"action: category "MEETING" has no action "ACCEPTT" (did you mean "ACCEPT"?)"#
            ),
            (#"{"notification":999,"type":"tap"}"#, 400, "notification: no notification 999"),
            (#"{"notification":\#(seq),"type":"tap","action":"ACCEPT"}"#, 400, "action: only with type action"),
            (#"{"notification":\#(seq),"type":"swipe"}"#, 400, "type"),
        ] {
            let (got, json) = call(api, "POST", path, body)
            XCTAssertEqual(got, status, body)
            XCTAssertTrue((json["error"] as? String ?? "").contains(text), "\(json) lacks \(text)")
        }
        XCTAssertEqual(
            call(api, "POST", "/v1/devices/\(Self.other)/interactions", #"{"notification":1,"type":"tap"}"#).0, 409)
        let (status, outcome) = call(api, "POST", path, #"{"notification":\#(seq),"type":"action","action":"ACCEPT"}"#)
        XCTAssertEqual(status, 200)
        XCTAssertEqual((outcome["response"] as? [String: Any])?["actionIdentifier"] as? String, "ACCEPT")
        XCTAssertEqual(outcome["launch"] as? String, "launchedWithRemoteNotification")
        XCTAssertEqual(outcome["appStateAfter"] as? String, "foreground")
        let record = call(api, "GET", "/v1/deliveries/\(seq)").1
        XCTAssertEqual((record["interactions"] as? [[String: Any]])?.count, 1)
        XCTAssertEqual(call(api, "GET", "/v1/devices/\(Self.token)").1["appState"] as? String, "foreground")
    }

    /// A PUT without device-model fields does not silently turn a virtual device plain (its
    /// stored and delivered notifications would be dropped): 409 and nothing changed, unless the
    /// body says `"virtual": false`.
    func testAPlainPutDoesNotDropAVirtualDeviceUnlessAsked() {
        let api = makeAPI()
        call(api, "PUT", "/v1/devices/\(Self.token)", Self.virtualBody)
        let seq = push(api)
        let (status, error) = call(
            api, "PUT", "/v1/devices/\(Self.token)", #"{"environment":"sandbox","topic":"com.example.app"}"#)
        XCTAssertEqual(status, 409)
        XCTAssertTrue((error["error"] as? String ?? "").contains("\"virtual\": false to make it plain"), "\(error)")
        let (_, kept) = call(api, "GET", "/v1/devices/\(Self.token)")
        XCTAssertEqual((kept["stored"] as? [String: Any])?["notification"] as? Int, Int(seq), "state kept")
        // With "virtual": true the registry fields change and the state stays.
        let (updated, virtual) = call(
            api, "PUT", "/v1/devices/\(Self.token)",
            #"{"environment":"sandbox","topic":"com.example.app","virtual":true,"connectivity":"offline","unregisteredAt":1796000000000}"#
        )
        XCTAssertEqual(updated, 200)
        XCTAssertEqual(virtual["unregisteredAt"] as? Int, 1_796_000_000_000)
        XCTAssertEqual((virtual["stored"] as? [String: Any])?["notification"] as? Int, Int(seq))
        // Asked for: plain.
        let (plain, json) = call(
            api, "PUT", "/v1/devices/\(Self.token)", #"{"environment":"sandbox","topic":"com.a","virtual":false}"#)
        XCTAssertEqual(plain, 200)
        XCTAssertNil(json["virtual"])
        XCTAssertTrue(api.devices.isEmpty)
    }

    /// A device-model field given as null makes a virtual device with that field's default (as
    /// the configuration file reads it), not a plain registration.
    func testANullModelFieldStillRegistersAVirtualDevice() {
        let api = makeAPI()
        let (status, json) = call(
            api, "PUT", "/v1/devices/\(Self.token)",
            #"{"environment":"sandbox","topic":"com.example.app","connectivity":null}"#)
        XCTAssertEqual(status, 201)
        XCTAssertEqual(json["virtual"] as? Bool, true)
        XCTAssertEqual(json["connectivity"] as? String, "online")
        // `"virtual": null` alone is no device-model field: a plain registration.
        let (_, plain) = call(
            api, "PUT", "/v1/devices/\(Self.other)", #"{"environment":"sandbox","topic":"b","virtual":null}"#)
        XCTAssertNil(plain["virtual"])
    }

    func testDeleteRemovesTheVirtualDevice() {
        let api = makeAPI()
        call(api, "PUT", "/v1/devices/\(Self.token)", Self.virtualBody)
        XCTAssertEqual(call(api, "DELETE", "/v1/devices/\(Self.token)").0, 200)
        XCTAssertTrue(api.devices.isEmpty)
        call(api, "PUT", "/v1/devices/\(Self.token)", Self.virtualBody)
        XCTAssertEqual(call(api, "DELETE", "/v1/devices").1["removed"] as? Int, 2)
        XCTAssertTrue(api.devices.isEmpty)
    }
}
