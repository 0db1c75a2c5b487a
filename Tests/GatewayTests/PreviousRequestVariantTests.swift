import XCTest

@testable import APNsCore
@testable import Faults
@testable import Gateway
@testable import Recording
@testable import TestFixtures

/// A push that differs from the previous one on its connection only in its device token, some
/// header values and its payload (a sender notifying many devices) has its record written from
/// the previous record (`PreviousRequest.Variant`, `CompactRecordTemplate.writeVariant`): every
/// record is byte for byte what the full path writes, and a push differing in anything else is
/// encoded in full.
final class PreviousRequestVariantTests: XCTestCase {
    private let connection = PushOrigin(id: 9, listener: "sandbox", environment: .sandbox, peer: "127.0.0.1:2")

    private func gateway(faults: FaultEngine) -> Gateway {
        let counter = Counter()
        return Gateway(
            store: DeliveryStore(capacity: 1000), registry: DeviceRegistry(), options: ValidationOptions(),
            faults: faults,
            clock: { 1_796_028_543.25 + Double(counter.tick()) / 8 })
    }

    private final class Counter: @unchecked Sendable {
        private var n = 0
        func tick() -> Int {
            n += 1
            return n
        }
    }

    /// Pushes `requests` with and without a memo (stream ids 1, 3, 5…; a few long varints) and
    /// checks that the records are the same bytes, but for the generated IDs, which differ
    /// between the two gateways and are set equal before comparing. Returns the memo.
    /// Also returns the indices of the pushes whose record was written as a variant.
    @discardableResult
    private func assertRecordedAsInFull(
        _ requests: [HTTP2Request], faults: () throws -> FaultEngine = { FaultEngine() },
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> (memo: PreviousRequest, variants: [Int]) {
        let memo = PreviousRequest()
        let fast = gateway(faults: try faults())
        let full = gateway(faults: try faults())
        var variants: [Int] = []
        for (index, request) in requests.enumerated() {
            let hits = memo.variantHits
            let stream = index % 7 == 6 ? Int32(1_000_001 + 2 * index) : Int32(2 * index + 1)
            let a = try XCTUnwrap(
                fast.store.record(seq: fast.handle(request, connection: connection, streamID: stream, memo: memo).seq))
            var b = try XCTUnwrap(
                full.store.record(seq: full.handle(request, connection: connection, streamID: stream).seq))
            b.apnsID = a.apnsID == "" || b.apnsID == a.apnsID ? b.apnsID : a.apnsID
            b.uniqueID = a.uniqueID
            XCTAssertEqual(a.apnsID, b.apnsID, "push \(index)", file: file, line: line)
            XCTAssertEqual(CompactRecord(a).bytes, CompactRecord(b).bytes, "push \(index)", file: file, line: line)
            XCTAssertEqual(a.path, request.path, file: file, line: line)
            XCTAssertEqual(a.payload, request.body, file: file, line: line)
            if memo.variantHits > hits { variants.append(index) }
        }
        return (memo, variants)
    }

    private static func token(_ i: Int) -> String {
        String(repeating: String(format: "%08x", 0x1000_0000 + i * 7919), count: 8)
    }

    private static func request(token: String, body: String) -> HTTP2Request {
        ValidationFixture.request(token: token, extra: [("content-length", String(body.utf8.count))], body: body)
    }

    /// Fan-out: one payload, a new device token each push.
    func testNewTokenEachPushIsAVariant() throws {
        let requests = (0..<40).map { Self.request(token: Self.token($0), body: ValidationFixture.alertBody) }
        let memo = try assertRecordedAsInFull(requests).memo
        XCTAssertEqual(memo.variantHits, requests.count - 1, "every push after the first")
    }

    /// Varied: token and payload both change, the payload's length too (content-length written as
    /// a table code, "5", or inline; the payload-bytes varint of 1 and 2 bytes).
    func testNewTokenAndPayloadEachPushIsAVariant() throws {
        var requests: [HTTP2Request] = []
        for i in 0..<60 {
            let padding = String(repeating: "x", count: i % 3 == 0 ? 0 : i * 3)
            requests.append(
                Self.request(token: Self.token(i), body: #"{"aps":{"alert":"hi \#(i)\#(padding)"},"n":\#(i)}"#))
        }
        requests.append(Self.request(token: Self.token(70), body: #"{"a":1}"#))  // content-length 7
        requests.append(Self.request(token: Self.token(71), body: #"{"ab":1}"#))  // 8
        requests.append(Self.request(token: Self.token(72), body: #"{"abc":1}"#))  // 9
        requests.append(Self.request(token: Self.token(73), body: #"{"abcd":1}"#))  // 10: a table code
        requests.append(Self.request(token: Self.token(74), body: #"{"abcde":1}"#))  // 11
        let memo = try assertRecordedAsInFull(requests).memo
        XCTAssertGreaterThan(memo.variantHits, requests.count / 2)
        XCTAssertLessThan(memo.variantHits, requests.count - 1, "a header value of another size is encoded in full")
    }

    /// Exact repeats between variants are deltas of the variant just written, and a push differing
    /// in anything else (topic, push type, expiration, a lint, a token of another length or case,
    /// a bad token, a rejected push) is encoded in full; each record is still the full path's.
    func testRepeatsAndOtherDifferencesBetweenVariants() throws {
        let body = ValidationFixture.alertBody
        let requests: [HTTP2Request] = [
            Self.request(token: Self.token(1), body: body),
            Self.request(token: Self.token(2), body: body),
            Self.request(token: Self.token(2), body: body),
            Self.request(token: Self.token(3), body: body),
            Self.request(token: Self.token(3).uppercased(), body: body),
            Self.request(token: Self.token(4), body: body),
            Self.request(token: String(Self.token(5).prefix(32)), body: body),
            Self.request(token: Self.token(6), body: body),
            ValidationFixture.request(token: Self.token(7), replacing: ["apns-topic": "com.example.other"], body: body),
            ValidationFixture.request(token: Self.token(8), replacing: ["apns-push-type": "background"], body: body),
            ValidationFixture.request(token: Self.token(9), extra: [("apns-expiration", "1796028600")], body: body),
            ValidationFixture.request(token: Self.token(10), extra: [("apns-expiration", "1796028601")], body: body),
            Self.request(token: Self.token(11), body: #"{"aps":{"alert":"x","bogus":1}}"#),
            Self.request(token: "zz" + Self.token(12).dropFirst(2), body: body),
            Self.request(token: Self.token(13), body: body),
            Self.request(token: Self.token(14), body: "[1]"),
            Self.request(token: Self.token(15), body: "[2]"),
            Self.request(token: Self.token(16), body: body),
            ValidationFixture.request(
                token: Self.token(17), extra: [("content-length", "25"), ("authorization", "bearer a.b.c")], body: body),
            ValidationFixture.request(
                token: Self.token(18), extra: [("content-length", "25"), ("authorization", "bearer a.b.d")], body: body),
            ValidationFixture.request(
                token: Self.token(19), extra: [("content-length", "25"), ("x-trace", "0001")], body: body),
            ValidationFixture.request(
                token: Self.token(20), extra: [("content-length", "25"), ("x-trace", "0002")], body: body),
            ValidationFixture.request(
                method: "GET", token: Self.token(21), extra: [("content-length", "25"), ("x-trace", "0002")], body: body
            ),
        ]
        let (memo, variants) = try assertRecordedAsInFull(requests)
        XCTAssertEqual(memo.recordHits, 1, "push 2 repeats push 1")
        // 1 and 3: new tokens. Not 5: the model (4, an uppercase token) has a path its verdict's
        // lowercase token does not point at. 16: another invalid body with the same answer and
        // message. 21: a header value of the same size. The rest differ in another field, or
        // follow a push that does (a header more or less, another name or method).
        XCTAssertEqual(variants, [1, 3, 16, 21])
    }

    /// A faulted push in between: its record is the fault path's, the next pushes still the full
    /// path's.
    func testAFaultedPushBetweenVariants() throws {
        let faults = {
            let engine = FaultEngine()
            _ = try engine.add(
                FaultRule.decode(
                    json: Array(
                        #"{"action":{"type":"sequence","steps":["pass","pass",{"type":"delay","ms":1},"pass"]}}"#.utf8))
            )
            return engine
        }
        let body = ValidationFixture.alertBody
        let requests = [1, 2, 3, 3, 4, 5].map { Self.request(token: Self.token($0), body: body) }
        let (_, variants) = try assertRecordedAsInFull(requests, faults: faults)
        // 2 is faulted (encoded by the fault path); 3 repeats it, a variant of 1 as 2 was.
        XCTAssertEqual(variants, [1, 3, 4, 5])
    }
}
