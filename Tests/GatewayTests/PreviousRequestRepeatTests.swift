import XCTest

@testable import APNsCore
@testable import Faults
@testable import Gateway
@testable import Recording
@testable import TestFixtures

/// A push repeating the previous one on its connection reuses its verdict and writes its record
/// from the previous record (`PreviousRequest.repeatedVerdict`, `CompactRecordTemplate`); every
/// record is byte for byte what the full path writes, and anything that could change the outcome
/// (the registry, the identity, a fault, other bytes) is noticed.
final class PreviousRequestRepeatTests: XCTestCase {
    private let connection = PushOrigin(id: 7, listener: "sandbox", environment: .sandbox, peer: "127.0.0.1:1")

    /// A gateway whose clock and IDs are the same for every instance: the n-th ID is a valid UUID
    /// made from n (uppercase for apns-id, lowercase for apns-unique-id, as the real generator).
    private func gateway(
        registry: DeviceRegistry = DeviceRegistry(), options: ValidationOptions = ValidationOptions(),
        faults: FaultEngine = FaultEngine(), capacity: Int = 100
    ) -> Gateway {
        let counter = Counter()
        return Gateway(
            store: DeliveryStore(capacity: capacity), registry: registry, options: options, faults: faults,
            clock: { 1_796_028_543.25 + Double(counter.tick()) / 8 },
            makeID: { uppercase in
                UUIDGenerator.format(
                    high: 0xA1B2_C3D4_0000_4A7B | UInt64(counter.tick()) << 16,
                    low: 0x8C9D_0E1F_2A3B_4C5D, uppercase: uppercase)
            })
    }

    /// Answers every push with `result`.
    private final class FixedCredentials: CredentialChecker {
        let result: AuthorizationResult?
        init(_ result: AuthorizationResult?) { self.result = result }
        func check(_ verdict: ValidationResult, of request: HTTP2Request) -> AuthorizationResult? { result }
        func settle(accepted: Bool) {}
    }

    private final class Counter: @unchecked Sendable {
        private var n = 0
        func tick() -> Int {
            n += 1
            return n
        }
    }

    /// Pushes `requests` on one connection with stream ids `streams`, with or without a memo, and
    /// returns each record's compact bytes and decoded form.
    private func push(
        _ requests: [HTTP2Request], streams: [Int32], memo: PreviousRequest?, gateway: Gateway,
        identities: [CredentialIdentity?]? = nil
    ) throws -> [DeliveryRecord] {
        try zip(requests.indices, zip(requests, streams)).map { index, item in
            var noProfile: StreamProfileState?
            let outcome = gateway.handle(
                item.0, connection: connection, streamID: item.1, memo: memo,
                credentials: FixedCredentials(
                    identities?[index].map { AuthorizationResult(reason: nil, identity: $0) }),
                streamProfile: &noProfile)
            // A delayed answer's record is pending until its HEADERS is sent, as the transport
            // then reports (issue 13): the records compared are the ones once every answer went out.
            if let pending = outcome.pendingAnswer { gateway.store.markAnswered(seq: outcome.seq, as: pending) }
            return try XCTUnwrap(gateway.store.record(seq: outcome.seq))
        }
    }

    private func assertSameRecords(
        _ a: [DeliveryRecord], _ b: [DeliveryRecord], file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(a.count, b.count, file: file, line: line)
        for (index, (x, y)) in zip(a, b).enumerated() {
            XCTAssertEqual(CompactRecord(x).bytes, CompactRecord(y).bytes, "record \(index)", file: file, line: line)
        }
    }

    func testRepeatedPushesAreRecordedAsTheFullPathRecordsThem() throws {
        let request = ValidationFixture.request()
        // Stream ids whose varints have 1, 2, 3 and 5 bytes, back and forth.
        let streams: [Int32] = [1, 3, 63, 65, 8191, 8193, 1_048_577, 5, .max]
        let requests = Array(repeating: request, count: streams.count)
        let memo = PreviousRequest()
        let fast = try push(requests, streams: streams, memo: memo, gateway: gateway())
        let full = try push(requests, streams: streams, memo: nil, gateway: gateway())
        assertSameRecords(fast, full)
        XCTAssertEqual(memo.verdictHits, streams.count - 1, "every push after the first repeats it")
        XCTAssertEqual(memo.recordHits, streams.count - 1)
        XCTAssertEqual(Set(fast.map(\.apnsID)).count, streams.count, "each push has its own apns-id")
        XCTAssertEqual(Set(fast.compactMap(\.uniqueID)).count, streams.count, "and its own apns-unique-id")
        XCTAssertEqual(fast.map(\.streamID), streams)
        XCTAssertEqual(fast.map(\.status), Array(repeating: 200, count: streams.count))
    }

    /// The template copies its model from the store: when the store no longer holds the model
    /// (another connection's push evicted it, or the store was cleared) the record is encoded in
    /// full, and the next repeat starts from that one.
    func testModelGoneFromTheStoreFallsBackToTheFullEncoding() throws {
        let request = ValidationFixture.request()
        let other = PushOrigin(id: 8, listener: "sandbox", environment: .sandbox, peer: "127.0.0.1:2")
        let gateway = gateway(capacity: 1)
        let memo = PreviousRequest(), otherMemo = PreviousRequest()
        var stream: Int32 = 1
        func pushBoth() throws {
            let mine = gateway.handle(request, connection: connection, streamID: stream, memo: memo)
            try assertStoredAsEncoded(mine.seq, in: gateway.store, stream: stream, connection: connection.id)
            // The other connection's push evicts this connection's model (capacity 1).
            let theirs = gateway.handle(request, connection: other, streamID: stream, memo: otherMemo)
            try assertStoredAsEncoded(theirs.seq, in: gateway.store, stream: stream, connection: other.id)
            stream += 2
        }
        for _ in 0..<4 { try pushBoth() }
        XCTAssertEqual(memo.verdictHits, 3, "the verdicts repeat")
        XCTAssertEqual(memo.recordHits, 0, "but each model was evicted before its repeat")
        XCTAssertEqual(gateway.store.stats().requests, 8)

        let cleared = self.gateway()
        let clearedMemo = PreviousRequest()
        var seqs: [UInt64] = []
        for index in 0..<4 {
            if index == 2 { cleared.store.clear() }
            let stream = Int32(2 * index + 1)
            seqs.append(cleared.handle(request, connection: connection, streamID: stream, memo: clearedMemo).seq)
            try assertStoredAsEncoded(seqs[index], in: cleared.store, stream: stream, connection: connection.id)
        }
        XCTAssertEqual(
            clearedMemo.recordHits, 2, "push 2 repeats push 1; push 3 finds no model after the clear; push 4 repeats 3")
        XCTAssertNil(cleared.store.record(seq: seqs[1]))
    }

    /// The stored record `seq` is byte for byte the encoding of what it holds, for `stream` on
    /// `connection`.
    private func assertStoredAsEncoded(
        _ seq: UInt64, in store: DeliveryStore, stream: Int32, connection: UInt64,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let compact = try XCTUnwrap(
            store.compactQuery(DeliveryFilter()).elements.first { $0.seq == seq }, file: file, line: line)
        let record = compact.record.decoded(seq: seq)
        XCTAssertEqual(CompactRecord(record).bytes, compact.record.bytes, "record \(seq)", file: file, line: line)
        XCTAssertEqual(record.streamID, stream, file: file, line: line)
        XCTAssertEqual(record.connectionID, connection, file: file, line: line)
    }

    /// With the gateway's own ID generator (whose IDs reach the record as bits, not text), every
    /// stored record is still exactly the encoding of what it holds.
    func testGeneratedIDsAreStoredAsTheirText() throws {
        let gateway = Gateway(
            store: DeliveryStore(capacity: 100), registry: DeviceRegistry(), options: ValidationOptions())
        let memo = PreviousRequest()
        let request = ValidationFixture.request()
        for stream in stride(from: Int32(1), through: 201, by: 10) {
            _ = gateway.handle(request, connection: connection, streamID: stream, memo: memo)
        }
        XCTAssertEqual(memo.recordHits, 20)
        let stored = gateway.store.compactQuery(DeliveryFilter())
        XCTAssertEqual(stored.elements.count, 21)
        for (seq, compact) in stored.elements {
            let record = compact.decoded(seq: seq)
            XCTAssertEqual(CompactRecord(record).bytes, compact.bytes, "record \(seq)")
            XCTAssertTrue(
                HeaderRules.isCanonicalUUID(record.apnsID) && record.apnsID == record.apnsID.uppercased(), record.apnsID
            )
            XCTAssertEqual(record.uniqueID, record.uniqueID?.lowercased())
        }
        XCTAssertEqual(Set(stored.elements.map { $0.record.decoded(seq: $0.seq).apnsID }).count, 21)
    }

    /// The answers of a connection with a memo are those `ResponseBuilder` makes for its records,
    /// on both environments and around rejections.
    func testAnswersAreTheResponseBuildersOwn() {
        let memo = PreviousRequest()
        let production = PushOrigin(id: 8, listener: "production", environment: .production, peer: "127.0.0.1:2")
        let requests = [
            ValidationFixture.request(), ValidationFixture.request(extra: [("apns-priority", "7")]),
            ValidationFixture.request(), ValidationFixture.request(),
        ]
        for info in [connection, production, connection] {
            for (index, request) in requests.enumerated() {
                let gateway = gateway()
                let outcome = gateway.handle(request, connection: info, streamID: Int32(2 * index + 1), memo: memo)
                let record = gateway.store.record(seq: outcome.seq)!
                let expected = ResponseBuilder.response(
                    reason: record.reason, timestamp: record.verdict.timestamp,
                    apnsID: record.apnsID, uniqueID: record.uniqueID)
                XCTAssertEqual(outcome.response, expected, "\(info.listener), push \(index)")
            }
        }
    }

    func testEchoedApnsIDAndRejectionsRepeatToo() throws {
        let echoed = ValidationFixture.request(extra: [("apns-id", "6F1D5D8A-8E1B-4C0A-9D1E-6F8B1A2C3D4E")])
        let rejected = ValidationFixture.request(extra: [("apns-priority", "7")])
        let requests = [echoed, echoed, echoed, rejected, rejected, rejected, echoed]
        let streams: [Int32] = [1, 3, 5, 7, 9, 11, 13]
        let memo = PreviousRequest()
        let fast = try push(requests, streams: streams, memo: memo, gateway: gateway())
        assertSameRecords(fast, try push(requests, streams: streams, memo: nil, gateway: gateway()))
        XCTAssertEqual(fast.map(\.status), [200, 200, 200, 400, 400, 400, 200])
        XCTAssertEqual(fast[1].apnsID, "6F1D5D8A-8E1B-4C0A-9D1E-6F8B1A2C3D4E")
        XCTAssertEqual(memo.verdictHits, 4)
        XCTAssertEqual(memo.recordHits, 4)
    }

    /// Bytes that differ only in ways Swift's `==` ignores still make a different push.
    func testCanonicallyEquivalentTopicIsNotARepeat() throws {
        let composed = ValidationFixture.request(removing: ["apns-topic"], extra: [("apns-topic", "com.caf\u{e9}")])
        let decomposed = ValidationFixture.request(removing: ["apns-topic"], extra: [("apns-topic", "com.cafe\u{301}")])
        let memo = PreviousRequest()
        let records = try push([composed, decomposed], streams: [1, 3], memo: memo, gateway: gateway())
        XCTAssertEqual(memo.verdictHits, 0)
        XCTAssertTrue(try XCTUnwrap(records[1].verdict.topic).utf8.elementsEqual("com.cafe\u{301}".utf8))
    }

    /// Bodies of one length with other bytes, and bodies cut at the transport's stored limit
    /// whose stored bytes are the same but whose lengths differ, are other pushes: each record
    /// holds its own payload and payload size.
    func testBodiesDifferingInBytesOrOnlyInLengthAreNotRepeats() throws {
        let hello = ValidationFixture.request(body: #"{"aps":{"alert":"hello"}}"#)
        let hellp = ValidationFixture.request(body: #"{"aps":{"alert":"hellp"}}"#)
        // What a transport keeps of bodies over its stored limit (64 bytes here): the same bytes.
        var cut = ValidationFixture.request(bytes: Array(repeating: UInt8(ascii: "x"), count: 64))
        cut.bodyLength = 20_000
        var longer = cut
        longer.bodyLength = 30_000
        let requests = [hello, hellp, cut, longer, longer]
        let streams: [Int32] = [1, 3, 5, 7, 9]
        let memo = PreviousRequest()
        let fast = try push(requests, streams: streams, memo: memo, gateway: gateway())
        assertSameRecords(fast, try push(requests, streams: streams, memo: nil, gateway: gateway()))
        XCTAssertEqual(fast.map(\.status), [200, 200, 413, 413, 413])
        XCTAssertEqual(fast.map(\.payloadBytes), [25, 25, 20_000, 30_000, 30_000])
        XCTAssertEqual(fast[1].payload, hellp.body)
        XCTAssertEqual(memo.verdictHits, 1, "only the last push repeats the one before")
    }

    /// The registry may change between two identical pushes (`PUT /v1/devices/...`): the second
    /// is checked against the new registration.
    func testRegistryChangeBetweenRepeatsIsSeen() throws {
        let registry = DeviceRegistry()
        let gateway = gateway(registry: registry)
        let memo = PreviousRequest()
        let request = ValidationFixture.request()
        let token = ValidationFixture.token
        XCTAssertEqual(gateway.handle(request, connection: connection, streamID: 1, memo: memo).response.status, 200)
        registry.put(DeviceRegistration(token: token, environment: .sandbox, unregisteredAt: 1_700_000_000_000))
        let refused = gateway.handle(request, connection: connection, streamID: 3, memo: memo)
        XCTAssertEqual(refused.response.status, 410)
        XCTAssertEqual(try XCTUnwrap(gateway.store.record(seq: refused.seq)).verdict.timestamp, 1_700_000_000_000)
        registry.remove(token: token)
        XCTAssertEqual(gateway.handle(request, connection: connection, streamID: 5, memo: memo).response.status, 200)
        XCTAssertEqual(gateway.handle(request, connection: connection, streamID: 7, memo: memo).response.status, 200)
        XCTAssertEqual(memo.verdictHits, 1, "only the last push: the registry changed before each of the others")
    }

    /// The verdict depends on the listener's environment (a registered device of the other
    /// environment is BadDeviceToken, docs/field-cases.md C14): a memo passed on to another connection does
    /// not carry it over.
    func testEnvironmentIsPartOfTheVerdictRepeat() throws {
        let registry = DeviceRegistry(devices: [
            DeviceRegistration(token: ValidationFixture.token, environment: .sandbox)
        ])
        let gateway = gateway(registry: registry)
        let memo = PreviousRequest()
        let production = PushOrigin(id: 8, listener: "production", environment: .production, peer: "127.0.0.1:2")
        let request = ValidationFixture.request()
        XCTAssertEqual(gateway.handle(request, connection: connection, streamID: 1, memo: memo).response.status, 200)
        let other = gateway.handle(request, connection: production, streamID: 1, memo: memo)
        XCTAssertEqual(other.response.status, 400)
        XCTAssertEqual(try XCTUnwrap(gateway.store.record(seq: other.seq)).reason, .badDeviceToken)
        XCTAssertEqual(memo.verdictHits, 0)
    }

    /// A repeated push whose credential identity differs gets a record of its own identity.
    func testIdentityIsPartOfTheRecordRepeat() throws {
        let verified = CredentialIdentity(
            kind: "token", keyID: "K1", teamID: "T1", issuedAt: 1_700_000_000, verdict: "verified")
        var later = verified
        later.issuedAt = 1_700_000_600
        var kelvin = verified
        kelvin.keyID = "\u{212A}1"  // the Kelvin sign: == "K1" for Swift, other bytes
        let identities: [CredentialIdentity?] = [verified, verified, later, later, kelvin, nil, nil]
        let request = ValidationFixture.request()
        let streams = (0..<identities.count).map { Int32(2 * $0 + 1) }
        let requests = Array(repeating: request, count: identities.count)
        let memo = PreviousRequest()
        let fast = try push(requests, streams: streams, memo: memo, gateway: gateway(), identities: identities)
        assertSameRecords(
            fast, try push(requests, streams: streams, memo: nil, gateway: gateway(), identities: identities))
        XCTAssertEqual(fast.map { $0.identity?.issuedAt }, identities.map { $0?.issuedAt })
        XCTAssertTrue(try XCTUnwrap(fast[4].identity?.keyID).utf8.elementsEqual("\u{212A}1".utf8))
        XCTAssertEqual(memo.recordHits, 3, "the second, fourth and last pushes repeat the identity before them")
    }

    /// A fault that leaves the answer as it was still belongs in the record.
    func testFaultedRepeatKeepsItsFault() throws {
        let faults = FaultEngine()
        _ = try faults.add(
            FaultRule.decode(
                json: Array(#"{"action":{"type":"sequence","steps":["pass",{"type":"delay","ms":1},"pass"]}}"#.utf8)))
        let request = ValidationFixture.request()
        let memo = PreviousRequest()
        let records = try push(
            Array(repeating: request, count: 4), streams: [1, 3, 5, 7], memo: memo, gateway: gateway(faults: faults))
        XCTAssertEqual(records.map(\.status), [200, 200, 200, 200])
        XCTAssertEqual(records.map { $0.fault?.action }, [nil, "delay", nil, nil])
        XCTAssertEqual(memo.verdictHits, 3)
        XCTAssertEqual(
            memo.recordHits, 2,
            "the third and fourth pushes, from the first's record; the faulted one is encoded in full")
    }

    /// A verdict carrying a 410 timestamp is not reused: an expired device without
    /// `unregisteredAt` is answered with the time of the check.
    func testTimestampedVerdictIsNotReused() throws {
        let registry = DeviceRegistry()
        let request = ValidationFixture.request()
        registry.put(DeviceRegistration(token: ValidationFixture.token, environment: .sandbox, expired: true))
        let counter = Counter()
        let gateway = Gateway(
            store: DeliveryStore(capacity: 10), registry: registry, options: ValidationOptions(),
            clock: { 1_796_028_543 + Double(counter.tick()) })
        let memo = PreviousRequest()
        let stamps = try (0..<3).map { i in
            try XCTUnwrap(
                gateway.store.record(
                    seq: gateway.handle(
                        request, connection: connection, streamID: Int32(2 * i + 1),
                        memo: memo
                    ).seq)
            ).verdict.timestamp
        }
        XCTAssertEqual(memo.verdictHits, 0)
        XCTAssertEqual(Set(stamps).count, 3, "each 410 carries its own time: \(stamps)")
    }

    /// Issue 19 §5: a device unregistered from a moment still to come is served until then, and
    /// a repeat of the same push on the same connection is refused from that moment on (the
    /// verdict is not reused past it).
    func testAFutureUnregistrationEndsTheReuseOfTheVerdictAtItsMoment() throws {
        let registry = DeviceRegistry()
        let request = ValidationFixture.request()
        // The clock ticks 1 s per push from 1_796_028_544 s: unregistered from the third push on.
        let moment: Int64 = 1_796_028_546_000
        registry.put(DeviceRegistration(token: ValidationFixture.token, environment: .sandbox, unregisteredAt: moment))
        let counter = Counter()
        let gateway = Gateway(
            store: DeliveryStore(capacity: 10), registry: registry, options: ValidationOptions(),
            clock: { 1_796_028_543 + Double(counter.tick()) })
        let memo = PreviousRequest()
        let verdicts = try (0..<4).map { i in
            try XCTUnwrap(
                gateway.store.record(
                    seq: gateway.handle(request, connection: connection, streamID: Int32(2 * i + 1), memo: memo).seq)
            ).verdict
        }
        XCTAssertEqual(verdicts.map(\.reason), [nil, nil, .unregistered, .unregistered])
        XCTAssertEqual(verdicts.map(\.timestamp), [nil, nil, moment, moment])
        XCTAssertEqual(memo.verdictHits, 1, "the second push, before the moment, reuses the first's verdict")
    }
}
