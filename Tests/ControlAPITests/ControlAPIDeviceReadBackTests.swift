import APNsCore
import Devices
import XCTest

@testable import ControlAPI
@testable import Recording
@testable import TestFixtures

/// Reading virtual devices' notifications back (docs/device-model.md §7): the delivery log by
/// apns-unique-id and apns-id, the delivery metrics, the lifecycle filters of the list and the
/// wait, and the Simulator `.apns` file.
final class ControlAPIDeviceReadBackTests: XCTestCase {
    private typealias F = StoreFixtures
    static let token = String(repeating: "ab", count: 32)
    static let plain = String(repeating: "cd", count: 32)

    private func makeAPI() -> ControlAPI {
        let api = ControlAPI(
            store: DeliveryStore(capacity: 100), registry: DeviceRegistry(), clock: { 1_796_000_000 },
            credentialClock: ServerClock(offsetSeconds: 0), status: { F.status() })
        let body = #"{"environment":"sandbox","topic":"com.example.app","connectivity":"offline"}"#
        XCTAssertEqual(api.respond("PUT", "/v1/devices/\(Self.token)", body: body).status, 201)
        return api
    }

    @discardableResult
    private func call(_ api: ControlAPI, _ method: String, _ target: String, _ body: String = "") -> (
        Int, [String: Any]
    ) {
        let response = api.respond(method, target, body: body)
        return (response.status, F.object(response.body))
    }

    @discardableResult
    private func push(
        _ api: ControlAPI, token: String = ControlAPIDeviceReadBackTests.token, status: Int = 200,
        collapseID: String? = nil, uniqueID: String? = nil, apnsID: String = "6F1D5D8A-8E1B-4C0A-9D1E-6F8B1A2C3D4E",
        pushType: PushType = .alert
    ) -> UInt64 {
        var record = F.record(
            token: token, status: status, reason: status == 200 ? nil : .badTopic, pushTypeSent: pushType.rawValue,
            pushType: pushType, apnsID: apnsID, collapseID: collapseID)
        record.uniqueID = uniqueID
        let seq = api.store.append(record)
        if status == 200 {
            api.devices.receive(DevicePush(id: seq, verdict: record.verdict, body: record.payload), token: token)
        }
        return seq
    }

    func testTheDeliveryLogByUniqueIDAndByAPNsID() {
        let api = makeAPI()
        let unique = "0b9a4c3e-6a0e-4b7e-9a43-2b5f3d1c0e11"
        let seq = push(api, uniqueID: unique, apnsID: "11111111-2222-3333-4444-555555555555")
        push(api, token: Self.plain, uniqueID: "aaaa", apnsID: "AAAAAAAA-0000-0000-0000-000000000001")
        push(api, token: Self.plain, status: 400, apnsID: "BBBBBBBB-0000-0000-0000-000000000002")
        call(api, "PATCH", "/v1/devices/\(Self.token)", #"{"connectivity":"online"}"#)
        for id in [unique.uppercased(), "11111111-2222-3333-4444-555555555555"] {
            let (status, json) = call(api, "GET", "/v1/delivery-log/\(id)")
            XCTAssertEqual(status, 200, id)
            let entries = json["notifications"] as? [[String: Any]] ?? []
            XCTAssertEqual(entries.map { $0["seq"] as? Int }, [Int(seq)], id)
            XCTAssertEqual(entries.first?["virtualDevice"] as? Bool, true)
            XCTAssertEqual(
                (entries.first?["log"] as? [[String: Any]])?.map { $0["state"] as? String },
                ["Received by APNs", "Stored - Device Offline", "Delivered to Device (From Storage)"])
        }
        // Not a virtual device: an accepted push is Received; a rejected one has no log.
        let plain = (call(api, "GET", "/v1/delivery-log/aaaa").1["notifications"] as? [[String: Any]])?.first
        XCTAssertEqual((plain?["log"] as? [[String: Any]])?.map { $0["state"] as? String }, ["Received by APNs"])
        XCTAssertEqual(plain?["virtualDevice"] as? Bool, false)
        let rejected =
            (call(api, "GET", "/v1/delivery-log/bbbbbbbb-0000-0000-0000-000000000002").1["notifications"]
            as? [[String: Any]])?.first
        XCTAssertEqual((rejected?["log"] as? [Any])?.count, 0)
        XCTAssertTrue(rejected?["lifecycleState"] is NSNull)
        XCTAssertEqual(call(api, "GET", "/v1/delivery-log/nope").0, 404)
    }

    func testTheDeliveryMetricsCountAsTheConsole() {
        let api = makeAPI()
        push(api, collapseID: "c")
        push(api, collapseID: "c")
        push(api, pushType: .background)
        call(api, "PATCH", "/v1/devices/\(Self.token)", #"{"connectivity":"online"}"#)
        let (status, json) = call(api, "GET", "/v1/delivery-metrics")
        XCTAssertEqual(status, 200)
        let total = json["total"] as? [String: Any] ?? [:]
        XCTAssertEqual(total["received"] as? Int, 3)
        XCTAssertEqual(total["storedDeviceOffline"] as? Int, 3)
        XCTAssertEqual(total["replaced"] as? Int, 2)
        XCTAssertEqual(total["delivered"] as? Int, 1)
        XCTAssertEqual(total["deliveredFromStorage"] as? Int, 1)
        let background = (json["byPushType"] as? [String: Any])?["background"] as? [String: Any]
        XCTAssertEqual(background?["deliveredFromStorage"] as? Int, 1)
        XCTAssertEqual(((json["byPriority"] as? [String: Any])?["10"] as? [String: Any])?["received"] as? Int, 3)
        // A window after everything counts nothing.
        let later = call(api, "GET", "/v1/delivery-metrics?from=9999999999999").1["total"] as? [String: Any]
        XCTAssertEqual(later?["received"] as? Int, 0)
        XCTAssertEqual(call(api, "GET", "/v1/delivery-metrics?from=soon").0, 400)
        XCTAssertEqual(call(api, "GET", "/v1/delivery-metrics?from=2000&to=1000").0, 400)
    }

    /// `DELETE /v1/deliveries`: the records go, and so do the notifications joined on them (the
    /// metrics count from nothing, the device stores nothing); the device stays registered.
    func testClearingTheDeliveriesClearsTheDevicesNotifications() {
        let api = makeAPI()
        let stored = push(api)
        XCTAssertEqual(call(api, "DELETE", "/v1/deliveries").0, 200)
        XCTAssertNil(api.devices.notification(stored))
        let total = call(api, "GET", "/v1/delivery-metrics").1["total"] as? [String: Any]
        XCTAssertEqual(total?["received"] as? Int, 0)
        XCTAssertEqual(total?["storedDeviceOffline"] as? Int, 0)
        let (status, device) = call(api, "GET", "/v1/devices/\(Self.token)")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(device["virtual"] as? Bool, true)
        XCTAssertTrue(device["stored"] is NSNull, "\(device)")
        XCTAssertEqual(device["connectivity"] as? String, "offline")
        // Coming online delivers nothing: what was stored went with its record.
        call(api, "PATCH", "/v1/devices/\(Self.token)", #"{"connectivity":"online"}"#)
        XCTAssertEqual(call(api, "GET", "/v1/devices/\(Self.token)").1["delivered"] as? [Int], [])
        let next = push(api)
        XCTAssertEqual(api.devices.notification(next)?.state, .delivered(fromStorage: false))
    }

    /// A delivered push collapsed on the device stays Delivered; its `device.presentation` says
    /// which notification replaced it.
    func testACollapsedDeliveryShowsTheCollapseInTheDeviceView() {
        let api = makeAPI()
        call(api, "PATCH", "/v1/devices/\(Self.token)", #"{"connectivity":"online"}"#)
        let first = push(api, collapseID: "score")
        let second = push(api, collapseID: "score")
        let record = call(api, "GET", "/v1/deliveries/\(first)").1
        XCTAssertEqual(record["lifecycleState"] as? String, "Delivered to Device")
        let presentation = (record["device"] as? [String: Any])?["presentation"] as? [String: Any]
        XCTAssertEqual(presentation?["replacedBy"] as? Int, Int(second))
        let newer = (call(api, "GET", "/v1/deliveries/\(second)").1["device"] as? [String: Any])?["presentation"]
        XCTAssertTrue((newer as? [String: Any])?["replacedBy"] is NSNull)
    }

    /// `presentation`: `shown` (a banner or list entry), `none` (delivered, nothing shown), `silent`
    /// (a delivered background push), each unambiguous.
    func testThePresentationFilterNamesAreUnambiguous() {
        let api = makeAPI()
        call(api, "PATCH", "/v1/devices/\(Self.token)", #"{"connectivity":"online"}"#)
        let shown = push(api)
        var badge = F.record(token: Self.token, payload: Array(#"{"aps":{"badge":2}}"#.utf8))
        badge.verdict.pushType = .alert
        let badgeOnly = api.store.append(badge)
        api.devices.receive(DevicePush(id: badgeOnly, verdict: badge.verdict, body: badge.payload), token: Self.token)
        var silentRecord = F.record(
            token: Self.token, pushTypeSent: "background", pushType: .background,
            payload: Array(#"{"aps":{"content-available":1}}"#.utf8))
        silentRecord.verdict.priority = 5
        let silent = api.store.append(silentRecord)
        api.devices.receive(
            DevicePush(id: silent, verdict: silentRecord.verdict, body: silentRecord.payload), token: Self.token)
        let seqs = { (value: String) in
            (self.call(api, "GET", "/v1/deliveries?presentation=\(value)").1["deliveries"] as? [[String: Any]] ?? [])
                .map { $0["seq"] as? Int }
        }
        XCTAssertEqual(seqs("shown"), [Int(shown)])
        XCTAssertEqual(seqs("none"), [Int(badgeOnly), Int(silent)])
        XCTAssertEqual(seqs("silent"), [Int(silent)])
        XCTAssertEqual(call(api, "GET", "/v1/deliveries?presentation=hidden").0, 400)
    }

    func testTheListAndTheWaitFilterOnLifecycleStates() {
        let api = makeAPI()
        let stored = push(api)
        push(api, token: Self.plain)
        let seqs = { (target: String) in
            (self.call(api, "GET", target).1["deliveries"] as? [[String: Any]] ?? []).map { $0["seq"] as? Int }
        }
        XCTAssertEqual(seqs("/v1/deliveries?lifecycle=stored"), [Int(stored)])
        XCTAssertEqual(seqs("/v1/deliveries?lifecycle=delivered"), [])
        let (status, json) = call(api, "GET", "/v1/deliveries?lifecycle=deliverd")
        XCTAssertEqual(status, 400)
        XCTAssertTrue((json["error"] as? String ?? "").contains(#"did you mean "delivered""#), "\(json)")
        XCTAssertEqual(
            call(api, "GET", "/v1/deliveries/wait?lifecycle=delivered&timeoutMs=0").1["complete"] as? Bool, false)
        guard
            case .wait(.deliveries(var wait)) = api.handle(
                ControlRequest(method: "GET", target: "/v1/deliveries/wait?lifecycle=delivered&presentation=shown"))
        else { return XCTFail("expected a pending wait") }
        XCTAssertNil(api.waitResult(&wait, timedOut: false))
        call(api, "PATCH", "/v1/devices/\(Self.token)", #"{"connectivity":"online"}"#)
        let answer = F.object(api.waitResult(&wait, timedOut: false)?.body ?? [])
        XCTAssertEqual(answer["complete"] as? Bool, true)
        XCTAssertEqual((answer["deliveries"] as? [[String: Any]])?.map { $0["seq"] as? Int }, [Int(stored)])
        XCTAssertEqual(seqs("/v1/deliveries?callback=none"), [Int(stored)])
        XCTAssertEqual(seqs("/v1/deliveries?callback=willPresent"), [])
    }

    func testTheSimulatorFileOfARecord() {
        let api = makeAPI()
        let alert = push(api)
        let voip = push(api, pushType: .voip)
        let response = api.respond("GET", "/v1/deliveries/\(alert)/apns")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(SimulatorPushFile.problems(in: response.body), [])
        XCTAssertEqual(F.object(response.body)[SimulatorPushFile.bundleKey] as? String, "com.example.app")
        let (status, json) = call(api, "GET", "/v1/deliveries/\(voip)/apns")
        XCTAssertEqual(status, 409)
        XCTAssertTrue((json["error"] as? String ?? "").contains("pushType: simctl push takes only"), "\(json)")
        XCTAssertEqual(call(api, "GET", "/v1/deliveries/99/apns").0, 404)
        // A push APNs did not accept reached no device: no .apns file (409 saying why).
        let rejected = push(api, status: 400)
        let refusal = call(api, "GET", "/v1/deliveries/\(rejected)/apns")
        XCTAssertEqual(refusal.0, 409)
        XCTAssertTrue(
            (refusal.1["error"] as? String ?? "").contains("was answered 400 BadTopic: APNs did not accept it"),
            "\(refusal.1)")
        // Seqs start at 1.
        let zero = call(api, "GET", "/v1/deliveries/0/apns")
        XCTAssertEqual(zero.0, 400)
        XCTAssertTrue((zero.1["error"] as? String ?? "").contains("seq must be an integer from 1"), "\(zero.1)")
    }
}
