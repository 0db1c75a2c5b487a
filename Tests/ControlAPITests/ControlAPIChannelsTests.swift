import Broadcast
import Foundation
import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import Recording
@testable import TestFixtures

/// `/v1/channels` (docs/broadcast.md §4): list, make and delete channels on a test's behalf.
final class ControlAPIChannelsTests: XCTestCase {
    func makeAPI(limit: Int = 10, totalLimit: Int = 100) -> ControlAPI {
        ControlAPI(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(),
            channels: ChannelStore(limit: limit, totalLimit: totalLimit),
            status: { StoreFixtures.status() })
    }

    func channels(_ json: [String: Any]) -> [[String: Any]] { json["channels"] as? [[String: Any]] ?? [] }

    func testAddListDelete() throws {
        let api = makeAPI()
        var (status, json) = api.call("POST", "/v1/channels", body: #"{"bundleId":"com.a"}"#)
        XCTAssertEqual(status, 201)
        let first = try XCTUnwrap(json["id"] as? String)
        XCTAssertEqual(json["environment"] as? String, "sandbox")
        XCTAssertEqual(json["messageStoragePolicy"] as? Int, 1)
        XCTAssertEqual(json["pushType"] as? String, "LiveActivity")
        XCTAssertNotNil(json["createdAt"] as? String)
        (status, json) = api.call(
            "POST", "/v1/channels", body: #"{"bundleId":"com.b","environment":"production","messageStoragePolicy":0}"#)
        XCTAssertEqual(status, 201)
        let second = try XCTUnwrap(json["id"] as? String)
        // The listeners' store: the same channel a create request would see.
        XCTAssertEqual(
            api.channels.channel(second, bundleID: "com.b", environment: .production)?.storagePolicy, .noMessageStored)

        (status, json) = api.call("GET", "/v1/channels")
        XCTAssertEqual(channels(json).map { $0["id"] as? String }, [second, first])  // production sorts first
        (status, json) = api.call("GET", "/v1/channels?bundleId=com.a")
        XCTAssertEqual(channels(json).map { $0["id"] as? String }, [first])
        (status, json) = api.call("GET", "/v1/channels?environment=production")
        XCTAssertEqual(channels(json).map { $0["id"] as? String }, [second])
        XCTAssertEqual(api.call("GET", "/v1/channels?environment=dev").0, 400)

        let escaped = first.replacingOccurrences(of: "/", with: "%2F").replacingOccurrences(of: "+", with: "%2B")
        (status, json) = api.call("DELETE", "/v1/channels/\(escaped)")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["id"] as? String, first)
        XCTAssertEqual(api.call("DELETE", "/v1/channels/\(escaped)").0, 404)
        XCTAssertNil(api.channels.channel(first, bundleID: "com.a", environment: .sandbox))
    }

    func testBadBodiesAndTheLimit() {
        let api = makeAPI(limit: 1)
        for body in [
            "", #"{"environment":"sandbox"}"#, #"{"bundleId":"com.a","x":1}"#,
            #"{"bundleId":"com.a","messageStoragePolicy":2}"#,
            #"{"bundleId":"com.a.push-type.liveactivity"}"#, #"{"bundleId":"a b"}"#,
        ] {
            XCTAssertEqual(api.call("POST", "/v1/channels", body: body).0, 400, body)
        }
        XCTAssertEqual(api.call("POST", "/v1/channels", body: #"{"bundleId":"com.a"}"#).0, 201)
        let (status, json) = api.call("POST", "/v1/channels", body: #"{"bundleId":"com.a"}"#)
        XCTAssertEqual(status, 409)
        XCTAssertEqual(json["error"] as? String, "the app has 1 channels in sandbox")
    }

    /// The store's total bound answers 409 naming it.
    func testTheTotalLimit() {
        let api = makeAPI(limit: 5, totalLimit: 1)
        XCTAssertEqual(api.call("POST", "/v1/channels", body: #"{"bundleId":"com.a"}"#).0, 201)
        let (status, json) = api.call("POST", "/v1/channels", body: #"{"bundleId":"com.b"}"#)
        XCTAssertEqual(status, 409)
        XCTAssertEqual(json["error"] as? String, "the store has 1 channels in all (broadcast.totalChannelLimit)")
    }

    /// `limit` and `after` page the list; `count`, `total` and `more` say where the page is; an
    /// `after` that is no listed channel is 400.
    func testTheListPages() throws {
        let api = makeAPI()
        var made: [String] = []
        for _ in 0..<5 {
            let (status, json) = api.call("POST", "/v1/channels", body: #"{"bundleId":"com.a"}"#)
            XCTAssertEqual(status, 201)
            made.append(try XCTUnwrap(json["id"] as? String))
        }
        func page(_ query: String) -> (ids: [String], count: Int?, total: Int?, more: Bool?) {
            let json = api.call("GET", "/v1/channels?" + query).1
            return (
                channels(json).compactMap { $0["id"] as? String }, json["count"] as? Int, json["total"] as? Int,
                json["more"] as? Bool
            )
        }
        func escaped(_ id: String) -> String { id.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        var got = page("limit=2")
        XCTAssertEqual(got.ids, Array(made[0..<2]))
        XCTAssertEqual(got.count, 2)
        XCTAssertEqual(got.total, 5)
        XCTAssertEqual(got.more, true)
        got = page("limit=2&after=\(escaped(made[1]))")
        XCTAssertEqual(got.ids, Array(made[2..<4]))
        got = page("limit=2&after=\(escaped(made[3]))")
        XCTAssertEqual(got.ids, [made[4]])
        XCTAssertEqual(got.more, false)
        XCTAssertEqual(page("").ids, made, "default limit 1000")
        XCTAssertEqual(page("limit=0").ids, [])
        XCTAssertEqual(api.call("GET", "/v1/channels?after=bm9uZQ%3D%3D").0, 400)
        XCTAssertEqual(api.call("GET", "/v1/channels?limit=-1").0, 400)
        XCTAssertEqual(api.call("GET", "/v1/channels?bundleId=com.b&after=\(escaped(made[0]))").0, 400)
    }
}
