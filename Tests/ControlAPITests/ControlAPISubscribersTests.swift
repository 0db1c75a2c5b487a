import Broadcast
import Devices
import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import Recording
@testable import TestFixtures

/// Virtual devices subscribed to broadcast channels through the control API (docs/broadcast.md
/// §5): `channels` on PUT and PATCH checked against the channel store, subscribers in
/// `GET /v1/channels`, and a broadcast's record with its fan-out joined.
final class ControlAPISubscribersTests: XCTestCase {
    static let tokens = ["a", "b", "c"].map { String(repeating: $0, count: 64) }

    func makeAPI() -> (ControlAPI, DeliveryStore) {
        let store = DeliveryStore(capacity: 20)
        let api = ControlAPI(
            store: store, registry: DeviceRegistry(), channels: ChannelStore(), status: { StoreFixtures.status() })
        return (api, store)
    }

    func makeChannel(_ api: ControlAPI, bundleID: String = "com.a", policy: Int = 1) throws -> String {
        let (status, json) = api.call(
            "POST", "/v1/channels", body: #"{"bundleId":"\#(bundleID)","messageStoragePolicy":\#(policy)}"#)
        XCTAssertEqual(status, 201)
        return try XCTUnwrap(json["id"] as? String)
    }

    func put(_ api: ControlAPI, _ token: String, channels: [String], extra: String = "") -> (Int, [String: Any]) {
        let list = channels.map { "\"\($0)\"" }.joined(separator: ",")
        return api.call(
            "PUT", "/v1/devices/\(token)",
            body: #"{"environment":"sandbox","topic":"com.a","channels":[\#(list)]\#(extra)}"#)
    }

    /// Unknown channels are 404, another app's 400, each naming `channels[N]` in a JSON error;
    /// PUT and PATCH set the list; the channel lists its subscribers.
    func testSubscriptionsAreCheckedAndListed() throws {
        let (api, _) = makeAPI()
        let channel = try makeChannel(api)
        let foreign = try makeChannel(api, bundleID: "com.b")
        var (status, json) = put(api, Self.tokens[0], channels: [channel, "bm9uZQ=="])
        XCTAssertEqual(status, 404)
        XCTAssertTrue((json["error"] as? String)?.contains("channels[1]") == true, "\(json)")
        (status, json) = put(api, Self.tokens[0], channels: [foreign])
        XCTAssertEqual(status, 400)
        XCTAssertTrue((json["error"] as? String)?.contains("com.b") == true, "\(json)")
        XCTAssertEqual(api.call("GET", "/v1/devices/\(Self.tokens[0])").0, 404, "nothing registered on a refusal")

        (status, json) = put(api, Self.tokens[0], channels: [channel])
        XCTAssertEqual(status, 201)
        XCTAssertEqual(json["channels"] as? [String], [channel])
        XCTAssertEqual(put(api, Self.tokens[1], channels: []).0, 201)
        (status, json) = api.call("PATCH", "/v1/devices/\(Self.tokens[1])", body: #"{"channels":["\#(channel)"]}"#)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["channels"] as? [String], [channel])
        XCTAssertEqual(
            api.call("PATCH", "/v1/devices/\(Self.tokens[1])", body: #"{"channels":["\#(foreign)"]}"#).0, 400)

        (status, json) = api.call("GET", "/v1/channels?bundleId=com.a")
        let listed = try XCTUnwrap((json["channels"] as? [[String: Any]])?.first)
        XCTAssertEqual(listed["subscribers"] as? [String], [Self.tokens[0], Self.tokens[1]])
        (status, json) = api.call("GET", "/v1/channels?bundleId=com.b")
        XCTAssertEqual((json["channels"] as? [[String: Any]])?.first?["subscribers"] as? [String], [])
    }

    /// A broadcast's record shows `fanOut` (0 without subscribers) and, when it reached devices,
    /// each device's copy (list, single record, delivery log); the metrics count the copies.
    func testABroadcastRecordShowsItsFanOut() throws {
        let (api, store) = makeAPI()
        let channel = try makeChannel(api)
        func record(_ requestID: String) -> UInt64 {
            var record = StoreFixtures.record(
                token: nil, topic: "com.a", pushTypeSent: "liveactivity", pushType: .liveactivity, apnsID: requestID,
                headers: [HeaderField(name: "apns-channel-id", value: channel)])
            record.path = "/4/broadcasts/apps/com.a"
            return store.append(record)
        }
        let alone = record("11111111-1111-1111-1111-111111111111")
        XCTAssertEqual(api.call("GET", "/v1/deliveries/\(alone)").1["fanOut"] as? Int, 0)

        for (index, token) in Self.tokens.enumerated() {
            XCTAssertEqual(
                put(api, token, channels: [channel], extra: index == 1 ? #","connectivity":"offline""# : "").0, 201)
        }
        let seq = record("22222222-2222-2222-2222-222222222222")
        XCTAssertEqual(
            api.devices.fanOut(
                DeviceBroadcast(
                    seq: seq, channelID: channel, storageLimitSeconds: 8 * 3600,
                    body: Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#.utf8))), 3)

        var (status, json) = api.call("GET", "/v1/deliveries/\(seq)")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["fanOut"] as? Int, 3)
        let copies = try XCTUnwrap(json["fanOutDeliveries"] as? [[String: Any]])
        XCTAssertEqual(copies.map { $0["deviceToken"] as? String }, Self.tokens)
        XCTAssertEqual(
            copies.map { $0["lifecycleState"] as? String },
            ["Delivered to Device", "Stored - Device Offline", "Delivered to Device"])

        (status, json) = api.call("GET", "/v1/deliveries?kind=broadcast")
        let listed = try XCTUnwrap(json["deliveries"] as? [[String: Any]])
        XCTAssertEqual(listed.map { $0["fanOut"] as? Int }, [0, 3])

        (status, json) = api.call("GET", "/v1/delivery-log/22222222-2222-2222-2222-222222222222")
        let entry = try XCTUnwrap((json["notifications"] as? [[String: Any]])?.first)
        let log = try XCTUnwrap(entry["fanOut"] as? [[String: Any]])
        XCTAssertEqual(log.map { $0["deviceToken"] as? String }, Self.tokens)
        XCTAssertEqual((log[1]["log"] as? [Any])?.count, 2)

        let device = api.call("GET", "/v1/devices/\(Self.tokens[1])").1
        let stored = try XCTUnwrap(device["stored"] as? [String: Any])
        XCTAssertEqual(
            (stored["notification"] as? NSNumber)?.uint64Value, (log[1]["notification"] as? NSNumber)?.uint64Value)

        json = api.call("GET", "/v1/delivery-metrics").1
        let live = (json["byPushType"] as? [String: Any])?["liveactivity"] as? [String: Any]
        XCTAssertEqual(live?["received"] as? Int, 3)
        XCTAssertEqual(live?["storedDeviceOffline"] as? Int, 1)
    }

    /// An answered create's record shows the channel it made as its `channelId` (its request
    /// named none), in the list and alone; an unanswered or refused create shows null.
    func testACreateRecordCarriesTheChannelItMade() throws {
        let (api, store) = makeAPI()
        func create(status: Int) -> UInt64 {
            var record = StoreFixtures.record(
                token: nil, topic: "com.a", status: status, pushTypeSent: nil, pushType: nil)
            record.path = "/1/apps/com.a/channels"
            return store.append(record)
        }
        let refused = create(status: 400)
        XCTAssertTrue(api.call("GET", "/v1/deliveries/\(refused)").1["channelId"] is NSNull)
        let made = try makeChannel(api)
        let seq = create(status: 201)
        api.channels.noteCreated(made, bySeq: seq)
        api.channels.noteCreated("b3RoZXI=", bySeq: refused)  // a 400 made nothing, whatever is noted
        XCTAssertEqual(api.call("GET", "/v1/deliveries/\(seq)").1["channelId"] as? String, made)
        let listed = try XCTUnwrap(api.call("GET", "/v1/deliveries?kind=channel").1["deliveries"] as? [[String: Any]])
        XCTAssertEqual(listed.map { $0["channelId"] as? String }, [nil, made])
        XCTAssertEqual(api.channels.channelCreated(bySeq: seq), made)
        // The channelId filter selects the create too, with the channel's other records.
        var broadcast = StoreFixtures.record(token: nil, topic: "com.a", status: 200, pushTypeSent: nil, pushType: nil)
        broadcast.path = "/4/broadcasts/apps/com.a"
        broadcast.headers = [HeaderField(name: "apns-channel-id", value: made)]
        let sent = store.append(broadcast)
        let query = "channelId=" + (made.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? made)
        let matched = try XCTUnwrap(api.call("GET", "/v1/deliveries?\(query)").1["deliveries"] as? [[String: Any]])
        XCTAssertEqual(matched.map { ($0["seq"] as? NSNumber)?.uint64Value }, [seq, sent])
        let channelOnly = try XCTUnwrap(
            api.call("GET", "/v1/deliveries?\(query)&kind=channel").1["deliveries"] as? [[String: Any]])
        XCTAssertEqual(channelOnly.map { ($0["seq"] as? NSNumber)?.uint64Value }, [seq])
        let waited = api.call("GET", "/v1/deliveries/wait?\(query)&count=2&timeoutMs=0").1
        XCTAssertEqual(waited["complete"] as? Bool, true)
        let verified = api.call("POST", "/v1/verify", body: #"{"channelId":"\#(made)","exactly":2}"#).1
        XCTAssertEqual(verified["ok"] as? Bool, true, "\(verified)")
    }
}
