import JSONInput
import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import JSONSupport
@testable import Recording
@testable import TestFixtures

/// Pages of records are rendered record by record (and by several threads for large pages),
/// yet come out byte for byte as one `JSONEncoder` call over the whole answer; payloads parsed
/// by `JSONSerialization` come out as `JSONNode` writes them.
final class DeliveryListJSONTests: XCTestCase {
    private typealias F = StoreFixtures

    /// The answers as a single `JSONEncoder` call renders them.
    private struct WholePage: Encodable {
        let deliveries: [DeliveryRecord]
        let evicted: UInt64
        let lastSeq: UInt64
        let more: Bool
    }

    private struct WholeWait: Encodable {
        let complete: Bool
        let count: Int
        let deliveries: [DeliveryRecord]
        let evicted: UInt64
        let lastSeq: UInt64
        let matched: Int
    }

    private func makeAPI(capacity: Int) -> ControlAPI {
        ControlAPI(
            store: DeliveryStore(capacity: capacity), registry: DeviceRegistry(devices: []),
            clock: { 1_796_028_543.5 }, status: { F.status() })
    }

    private func body(_ api: ControlAPI, _ target: String) -> [UInt8] {
        guard case .response(let response) = api.handle(ControlRequest(method: "GET", target: target, body: [])) else {
            XCTFail("\(target) waits")
            return []
        }
        XCTAssertEqual(response.status, 200, target)
        return response.body
    }

    /// Records that differ from one another, so a misplaced one would show.
    private func fill(_ store: DeliveryStore, _ n: Int) {
        for i in 0..<n {
            let token = String(format: "%08x", i)
            store.append(
                F.record(
                    token: token, status: i % 7 == 0 ? 410 : 200, reason: i % 7 == 0 ? .unregistered : nil,
                    headers: [
                        HeaderField(name: "apns-topic", value: "com.example.app"),
                        HeaderField(name: "x-n", value: "\(i)"),
                    ],
                    payload: Array(#"{"aps":{"alert":"n\#(i)","badge":\#(i)}}"#.utf8),
                    receivedAt: 1_796_028_543.123 + Double(i), timestamp: i % 7 == 0 ? Int64(i) : nil))
        }
    }

    func testLargePageIsByteForByteOneEncoderCall() {
        let n = 2 * DeliveryListJSON.recordsPerTask + 501  // several tasks, uneven runs
        let api = makeAPI(capacity: n)
        fill(api.store, n)
        let all = api.store.query(DeliveryFilter())
        XCTAssertEqual(
            body(api, "/v1/deliveries"),
            ControlResponse(
                status: 200,
                encoding: WholePage(
                    deliveries: all.deliveries, evicted: 0,
                    lastSeq: UInt64(n), more: false)
            ).body)
        let page = api.store.query(DeliveryFilter(status: 410, after: 10), limit: 300)
        XCTAssertTrue(page.more)
        XCTAssertEqual(
            body(api, "/v1/deliveries?status=410&after=10&limit=300"),
            ControlResponse(
                status: 200,
                encoding: WholePage(
                    deliveries: page.deliveries, evicted: 0,
                    lastSeq: UInt64(n), more: true)
            ).body)
        let json = F.object(body(api, "/v1/deliveries"))
        XCTAssertEqual((json["deliveries"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int }, Array(1...n))
    }

    func testEmptyAndEvictedPagesMatchOneEncoderCall() {
        let api = makeAPI(capacity: 3)
        XCTAssertEqual(
            body(api, "/v1/deliveries"),
            ControlResponse(status: 200, encoding: WholePage(deliveries: [], evicted: 0, lastSeq: 0, more: false)).body)
        fill(api.store, 5)
        let kept = api.store.query(DeliveryFilter()).deliveries
        XCTAssertEqual(kept.map(\.seq), [3, 4, 5])
        XCTAssertEqual(
            body(api, "/v1/deliveries"),
            ControlResponse(status: 200, encoding: WholePage(deliveries: kept, evicted: 2, lastSeq: 5, more: false))
                .body)
    }

    func testLargeWaitAnswerIsByteForByteOneEncoderCall() {
        let n = DeliveryListJSON.recordsPerTask * 2 + 3
        let api = makeAPI(capacity: n)
        fill(api.store, n)
        let all = api.store.query(DeliveryFilter()).deliveries
        XCTAssertEqual(
            body(api, "/v1/deliveries/wait?count=\(n + 1)&timeoutMs=0"),
            ControlResponse(
                status: 200,
                encoding: WholeWait(
                    complete: false, count: n + 1, deliveries: all,
                    evicted: 0, lastSeq: UInt64(n), matched: n)
            ).body)
    }

    /// Headers and identities are written once per run of equal values and put into each
    /// record: runs, changes, canonically equivalent but different bytes, and text that looks
    /// like the place they go all come out as one encoder call writes them.
    func testRepeatedHeadersAndIdentitiesAreByteForByteOneEncoderCall() {
        let decoy = #""headers":null,"identity":null"#
        let headerSets: [[HeaderField]] = [
            [HeaderField(name: "apns-topic", value: "com.example.app")],
            [HeaderField(name: "apns-topic", value: "com.example.app")],
            [HeaderField(name: "apns-topic", value: "caf\u{e9}")],
            [HeaderField(name: "apns-topic", value: "cafe\u{301}")],
            [],
            [HeaderField(name: "x-decoy", value: decoy), HeaderField(name: "x-quote", value: #"a"b\c/d"#)],
            [HeaderField(name: "x-decoy", value: decoy), HeaderField(name: "x-quote", value: #"a"b\c/d"#)],
        ]
        let identities: [CredentialIdentity?] = [
            CredentialIdentity(kind: "none", verdict: "no-token"),
            CredentialIdentity(kind: "none", verdict: "no-token"), nil,
            CredentialIdentity(kind: "token", keyID: "K", teamID: "T", issuedAt: 1_700_000_000, verdict: "verified"),
            CredentialIdentity(kind: "token", keyID: "K", teamID: "T", issuedAt: 1_700_000_001, verdict: "verified"),
            CredentialIdentity(kind: "certificate", subject: decoy, topics: ["a", "b"], verdict: "v"),
            CredentialIdentity(kind: "certificate", subject: decoy, topics: ["a"], verdict: "v"),
            CredentialIdentity(kind: "certificate", subject: decoy, topics: [], verdict: "v"), nil,
        ]
        let n = DeliveryListJSON.recordsPerTask + 50
        let api = makeAPI(capacity: n)
        for i in 0..<n {
            var record = F.record(headers: headerSets[(i / 3) % headerSets.count])
            record.identity = identities[(i / 2) % identities.count]
            if i % 17 == 0 {
                record.fault = FaultRecord(ruleID: "f1", action: "respond", description: decoy)
            }
            api.store.append(record)
        }
        let all = api.store.query(DeliveryFilter())
        XCTAssertEqual(
            body(api, "/v1/deliveries"),
            ControlResponse(
                status: 200,
                encoding: WholePage(
                    deliveries: all.deliveries, evicted: 0,
                    lastSeq: UInt64(n), more: false)
            ).body)
    }

    func testMarkersAreFoundOnlyAsTheRecordsOwnKeys() {
        let decoys = #""headers":null,"identity":null "payload":null,"payloadBytes":"#
        var record = F.record(headers: [HeaderField(name: "x", value: decoys)], lints: [decoys])
        record.fault = FaultRecord(ruleID: decoys, action: "a", description: "d")
        record.path = "/3/device/" + decoys
        let shell = ControlResponse(
            status: 200, encoding: DeliveryRecordWithoutParts(record: record, payloadIsJSON: true)
        ).body
        let text = String(decoding: shell, as: UTF8.self)
        shell.withUnsafeBufferPointer { json in
            let parts = DeliveryListJSON.markerIndex(DeliveryListJSON.partsMarker, in: json, from: 0)
            XCTAssertEqual(
                parts.map { String(decoding: shell[..<$0], as: UTF8.self) }?.hasSuffix(#"payloadBytes\":"},"#), true,
                text)
            let payload = parts.flatMap {
                DeliveryListJSON.markerIndex(DeliveryListJSON.payloadMarker, in: json, from: $0)
            }
            XCTAssertEqual(
                payload.map { String(decoding: shell[..<$0], as: UTF8.self) }?.hasSuffix(
                    #""path":"/3/device/\"headers\":null,\"identity\":null \"payload\":null,\"payloadBytes\":","#),
                true, text)
        }
    }

    /// Payloads are parsed and written once per run of equal bodies: JSON and non-JSON bodies,
    /// runs and changes, and bodies holding the markers' text.
    func testRepeatedPayloadsAreByteForByteOneEncoderCall() {
        let payloads = [
            #"{"aps":{"alert":"same"}}"#, #"{"aps":{"alert":"same"}}"#, "not json", "not json", "",
            #"{"a":""payload":null,"payloadBytes":","b":[1,2.5,true,null]}"#, #"[1,"two"]"#, #""text""#, "7",
            #"{"aps":{"alert":"same"}}"#,
        ]
        let n = 200
        let api = makeAPI(capacity: n)
        for i in 0..<n {
            api.store.append(
                F.record(
                    payload: Array(payloads[(i / 2) % payloads.count].utf8),
                    lints: i % 5 == 0 ? [#""payload":null,"payloadBytes":"#] : []))
        }
        let all = api.store.query(DeliveryFilter())
        XCTAssertEqual(
            body(api, "/v1/deliveries"),
            ControlResponse(
                status: 200,
                encoding: WholePage(
                    deliveries: all.deliveries, evicted: 0,
                    lastSeq: UInt64(n), more: false)
            ).body)
    }

    // MARK: payloads

    /// A payload written through `ParsedJSONEncoding`.
    private struct Parsed: Encodable {
        enum Key: String, CodingKey { case value }
        let value: Any
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try ParsedJSONEncoding.encode(value, forKey: .value, in: &container)
        }
    }

    func testParsedPayloadsAreWrittenAsControlJSONWritesThem() throws {
        let payloads = [
            #"{"aps":{"alert":{"title":"Hi","body":"there"},"badge":3,"sound":"default"},"k":[1,2,{"z":null,"a":true}]}"#,
            #"{"numbers":[0,-0,1.0,1e2,1.5,-2.25,0.1,1E-7,2.5e-300,9223372036854775807,-9223372036854775808,18446744073709551615,123456789012345678901234,1e20]}"#,
            #"{"b":[true,false],"n":null,"e":{},"a":[],"s":"é 🙂 \u00e9 \ud83d\ude42","esc":"a/b \"q\" \\ \n\t\u0001"}"#,
            #"[1,"two",{"three":3}]"#, #""text""#, "3", "true", "null", "  {\"sp\" : 1 }  ",
            String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        ]
        for text in payloads {
            let bytes = Array(text.utf8)
            let parsed = try XCTUnwrap(ParsedJSONEncoding.parse(bytes), text)
            XCTAssertEqual(
                String(decoding: ControlResponse(status: 200, encoding: Parsed(value: parsed)).body, as: UTF8.self),
                String(
                    decoding: ControlResponse(status: 200, json: ["value": try JSONNode(decoding: bytes)]).body,
                    as: UTF8.self), text)
        }
        for text in ["", "{", "not json", #"{"a":1e400}"#, "\u{FEFF}"] {
            XCTAssertNil(ParsedJSONEncoding.parse(Array(text.utf8)), text)
        }
    }

    func testRecordPayloadFieldsForEachBodyKind() {
        var json = F.object(
            encoding: F.record(payload: Array(#"[1,{"a":2.5}]"#.utf8), payloadError: "payload is not a JSON object"))
        XCTAssertEqual((json["payload"] as? [Any])?.count, 2)
        XCTAssertTrue(json["payloadText"] is NSNull)
        // A repeated key shows the value validation judged: JSONSerialization keeps the last.
        json = F.object(encoding: F.record(payload: Array(#"{"aps":{"alert":"first"},"aps":{"alert":"last"}}"#.utf8)))
        XCTAssertEqual(((json["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"] as? String, "last")
        json = F.object(encoding: F.record(payload: [0xFF, 0x41]))
        XCTAssertTrue(json["payload"] is NSNull)
        XCTAssertEqual(json["payloadText"] as? String, "\u{FFFD}A")
    }
}
