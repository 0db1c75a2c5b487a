import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import JSONSupport
@testable import Recording
@testable import TestFixtures

/// `GET /v1/deliveries/stream` and `GET /v1/events/stream`: what `handle` opens, and what
/// `streamMessages` sends from the stores.
final class ControlAPIStreamsTests: XCTestCase {
    private typealias F = StoreFixtures
    private typealias E = EventFixtures

    private func makeAPI(capacity: Int = 100) -> ControlAPI {
        ControlAPI(
            store: DeliveryStore(capacity: capacity), registry: DeviceRegistry(devices: []), status: { F.status() })
    }

    private func open(_ api: ControlAPI, _ target: String, headers: [(name: String, value: String)] = [])
        -> ControlStream?
    {
        guard case .stream(let stream) = api.handle(ControlRequest(method: "GET", target: target, headers: headers))
        else { return nil }
        return stream
    }

    private func lines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func testOpensWithFormatFiltersAndPosition() throws {
        let api = makeAPI()
        let sse = try XCTUnwrap(open(api, "/v1/deliveries/stream?token=AABB&after=3"))
        XCTAssertEqual(sse.format, .sse)
        XCTAssertEqual(sse.source, .deliveries(DeliveryFilter(token: "aabb", after: 3)))
        XCTAssertEqual(sse.position, StreamPosition(scanned: 3, reportsGap: true))
        let ndjson = try XCTUnwrap(
            open(
                api, "/v1/events/stream?kind=goaway",
                headers: [("Accept", "application/x-ndjson"), ("Last-Event-ID", "8")]))
        XCTAssertEqual(ndjson.format, .ndjson)
        XCTAssertEqual(ndjson.position.scanned, 8)
        XCTAssertEqual(ndjson.recordEvent, "event")
        for (target, status) in [
            ("/v1/deliveries/stream?format=xml", 400), ("/v1/deliveries/stream?count=2", 400),
            ("/v1/events/stream?kind=nope", 400), ("/v1/deliveries/stream?status=x", 400),
        ] {
            guard case .response(let response) = api.handle(ControlRequest(method: "GET", target: target)) else {
                return XCTFail(target)
            }
            XCTAssertEqual(response.status, status, target)
        }
        guard
            case .response(let bad) = api.handle(
                ControlRequest(method: "GET", target: "/v1/deliveries/stream", headers: [("Last-Event-ID", "x")]))
        else { return XCTFail("Last-Event-ID") }
        XCTAssertEqual(bad.status, 400)
    }

    func testSendsStoredThenNewRecordsOnceEachAsTheListRendersThem() throws {
        let api = makeAPI()
        api.store.append(F.record(token: "aa"))
        api.store.append(F.record(token: "bb"))
        api.store.append(F.record(token: "aa"))
        var stream = try XCTUnwrap(open(api, "/v1/deliveries/stream?token=aa&format=ndjson"))
        let first = lines(api.streamMessages(&stream))
        let listed = F.object(try api.listDeliveries(["token": "aa"]).body)["deliveries"] as? [[String: Any]] ?? []
        XCTAssertEqual(first.count, 2)
        XCTAssertEqual(first.map { F.object(Array($0.utf8))["seq"] as? Int }, [1, 3])
        XCTAssertEqual(
            first.map { F.object(Array($0.utf8)) as NSDictionary }, listed.map { $0 as NSDictionary })
        XCTAssertEqual(api.streamMessages(&stream), [])  // nothing new
        api.store.append(F.record(token: "bb"))
        XCTAssertEqual(api.streamMessages(&stream), [])  // nothing matching
        XCTAssertEqual(stream.position.scanned, 4)
        api.store.append(F.record(token: "aa"))
        XCTAssertEqual(lines(api.streamMessages(&stream)).map { F.object(Array($0.utf8))["seq"] as? Int }, [5])
    }

    func testBatchesOfAtMostTheLimit() throws {
        let api = makeAPI()
        for _ in 0..<5 { api.store.append(F.record()) }
        var stream = try XCTUnwrap(open(api, "/v1/deliveries/stream"))
        let batch = String(decoding: api.streamMessages(&stream, limit: 2), as: UTF8.self)
        XCTAssertEqual(batch.components(separatedBy: "event: delivery\n").count - 1, 2)
        XCTAssertTrue(batch.hasPrefix("event: delivery\nid: 1\ndata: {"), batch)
        XCTAssertTrue(stream.hasMore)
        XCTAssertEqual(stream.position.scanned, 2)
        XCTAssertTrue(String(decoding: api.streamMessages(&stream, limit: 2), as: UTF8.self).contains("id: 4\n"))
        XCTAssertTrue(String(decoding: api.streamMessages(&stream, limit: 2), as: UTF8.self).contains("id: 5\n"))
        XCTAssertFalse(stream.hasMore)
        XCTAssertEqual(api.streamMessages(&stream, limit: 2), [])
    }

    func testEvictedAndClearedRecordsAreAGapNeverASilentSkip() throws {
        let api = makeAPI(capacity: 3)
        for _ in 0..<3 { api.store.append(F.record()) }
        var stream = try XCTUnwrap(open(api, "/v1/deliveries/stream?after=1&format=ndjson"))
        XCTAssertEqual(lines(api.streamMessages(&stream)).count, 2)
        for _ in 0..<5 { api.store.append(F.record()) }  // 4...8; 4 and 5 evicted before sent
        let next = lines(api.streamMessages(&stream))
        XCTAssertEqual(next.first, #"{"gap":true,"from":4,"to":5,"reason":"evicted or cleared before it was sent"}"#)
        XCTAssertEqual(next.dropFirst().map { F.object(Array($0.utf8))["seq"] as? Int }, [6, 7, 8])
        api.store.append(F.record())
        api.store.clear()
        XCTAssertEqual(
            lines(api.streamMessages(&stream)),
            [#"{"gap":true,"from":9,"to":9,"reason":"evicted or cleared before it was sent"}"#])
    }

    func testEventsStream() throws {
        let api = makeAPI()
        api.events.append(E.event(.refused, origin: .listenerCondition, connection: nil))
        api.events.append(E.event(.reset(when: nil), origin: .command))
        var stream = try XCTUnwrap(open(api, "/v1/events/stream?kind=reset"))
        let text = String(decoding: api.streamMessages(&stream), as: UTF8.self)
        let event = try XCTUnwrap(api.events.event(seq: 2))
        let json = String(decoding: ControlResponse(status: 200, encoding: event).body, as: UTF8.self)
        XCTAssertEqual(text, "event: event\nid: 2\ndata: \(json)\n\n")
        XCTAssertEqual(api.streamMessages(&stream), [])
    }
}
