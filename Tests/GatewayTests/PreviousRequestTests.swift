import XCTest

@testable import APNsCore
@testable import Gateway
@testable import Recording
@testable import TestFixtures

/// `PreviousRequest`: a body identical to the connection's previous one is not parsed again, and
/// the verdict is the same as with a fresh parse; a repeated `authorization` is redacted once.
final class PreviousRequestTests: XCTestCase {
    typealias F = ValidationFixture

    private func validate(
        _ request: HTTP2Request, memo: PreviousRequest?, options: ValidationOptions = ValidationOptions()
    )
        -> ValidationResult
    {
        RequestValidator.validate(
            request, environment: .sandbox, options: options, nowMilliseconds: F.now,
            memo: memo
        ) { _ in nil }
    }

    func testRepeatedBodyIsNotParsedAgain() {
        let memo = PreviousRequest()
        let request = F.request(body: #"{"aps":{"alert":"hello","badge":"1"},"x":[1,2]}"#)
        let fresh = validate(request, memo: nil)
        XCTAssertFalse(fresh.lints.isEmpty, "the body has a lint, so the memo carries facts, not just a pass")
        for round in 0..<3 {
            XCTAssertEqual(validate(request, memo: memo), fresh, "round \(round)")
        }
        XCTAssertEqual(memo.payloadHits, 2, "the first body is parsed, the two repeats are not")
    }

    func testSameLengthDifferentBytesIsParsed() {
        let memo = PreviousRequest()
        let alert = F.request(body: #"{"aps":{"alert":"x"}}"#)
        let sound = F.request(body: #"{"aps":{"sound":"x"}}"#)
        let background = F.request(removing: ["apns-push-type"], body: #"{"aps":{"content-available":1}}"#)
        for request in [alert, sound, alert, background, sound] {
            XCTAssertEqual(validate(request, memo: memo), validate(request, memo: nil))
        }
        XCTAssertEqual(memo.payloadHits, 0, "no body followed an identical one")
        XCTAssertEqual(validate(background, memo: memo).pushType, .background)
        XCTAssertEqual(validate(background, memo: memo).pushType, .background, "the repeat keeps its own facts")
        XCTAssertEqual(memo.payloadHits, 1, "only the back-to-back repeat of the background body")
    }

    func testInvalidBodyKeepsItsReasonAndMessage() {
        let memo = PreviousRequest()
        let options = ValidationOptions(invalidPayloadReason: .badMessageID)
        let request = F.request(body: #"{"aps":"#)
        let fresh = validate(request, memo: nil, options: options)
        XCTAssertEqual(fresh.reason, .badMessageID)
        XCTAssertNotNil(fresh.payloadError)
        XCTAssertEqual(validate(request, memo: memo, options: options), fresh)
        XCTAssertEqual(validate(request, memo: memo, options: options), fresh)
        XCTAssertEqual(memo.payloadHits, 1)
        XCTAssertEqual(validate(F.request(body: "[1]"), memo: memo).payloadError, "payload is not a JSON object")
    }

    /// Header checks are reused while the names, the `apns-` values and the default topic repeat
    /// (another device token, body or `content-length` keeps them); the verdict is the one
    /// validation without a memo gives.
    func testHeaderChecksAreReusedWhileTheirInputRepeats() {
        let memo = PreviousRequest()
        let other = String(repeating: "c3d4", count: 16)
        let steps: [(HTTP2Request, String?, Bool)] = [
            (F.request(extra: [("content-length", "25")]), nil, false),
            (
                F.request(token: other, extra: [("content-length", "25")], body: #"{"aps":{"alert":"other"}}"#), nil,
                true
            ),
            (F.request(extra: [("content-length", "31")], body: #"{"aps":{"alert":"hello there"}}"#), nil, true),
            (F.request(replacing: ["apns-push-type": "background"], extra: [("content-length", "31")]), nil, false),
            (F.request(replacing: ["apns-push-type": "background"], extra: [("content-length", "31")]), "x.y", false),
            (F.request(replacing: ["apns-push-type": "background"], extra: [("content-length", "31")]), "x.y", true),
            (F.request(removing: ["apns-topic"], extra: [("content-length", "31")]), "x.y", false),
            (F.request(removing: ["apns-topic"], extra: [("content-length", "31")]), "x.z", false),
            (F.request(extra: [("content-length", "31"), ("apns-priority", "5")]), nil, false),
            (F.request(extra: [("content-length", "31"), ("apns-priority", "7")]), nil, false),
        ]
        var hits = 0
        for (index, (request, defaultTopic, reused)) in steps.enumerated() {
            let fresh = RequestValidator.validate(
                request, environment: .sandbox, options: ValidationOptions(), nowMilliseconds: F.now,
                defaultTopic: defaultTopic, memo: nil
            ) { _ in nil }
            let memoized = RequestValidator.validate(
                request, environment: .sandbox, options: ValidationOptions(), nowMilliseconds: F.now,
                defaultTopic: defaultTopic, memo: memo
            ) { _ in nil }
            XCTAssertEqual(memoized, fresh, "step \(index + 1)")
            if reused { hits += 1 }
            XCTAssertEqual(memo.headerCheckHits, hits, "step \(index + 1)")
        }
        XCTAssertEqual(hits, 3)
    }

    func testEmptyAndOversizedBodiesNeverReachTheMemo() {
        let memo = PreviousRequest()
        XCTAssertEqual(validate(F.request(body: ""), memo: memo).reason, .payloadEmpty)
        XCTAssertEqual(validate(F.request(body: ""), memo: memo).reason, .payloadEmpty)
        let big = F.request(bytes: [UInt8](repeating: UInt8(ascii: "x"), count: 5000))
        XCTAssertEqual(validate(big, memo: memo).reason, .payloadTooLarge)
        XCTAssertEqual(validate(big, memo: memo).reason, .payloadTooLarge)
        XCTAssertEqual(memo.payloadHits, 0)
    }
}

/// The redaction half of `PreviousRequest`, through `Gateway.handle`: records hold the redacted
/// token whether it was redacted now or reused.
final class PreviousRequestRedactionTests: XCTestCase {
    func testRepeatedAuthorizationIsRedactedOnceAndEveryRecordHoldsItsOwnValue() throws {
        let gateway = Gateway(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(devices: []),
            options: ValidationOptions())
        let memo = PreviousRequest()
        let connection = PushOrigin(id: 1, listener: "s", environment: .sandbox, peer: "127.0.0.1:1")
        let sent = [
            "bearer h1.c1.s1", "bearer h1.c1.s1", "bearer h2.c2.s2", "not-a-jwt", "not-a-jwt", "bearer h1.c1.s1",
        ]
        var recorded: [String] = []
        var lists: [[HeaderField]] = []
        for (index, value) in sent.enumerated() {
            // Another header changes on every push (as apns-id often does), so whole header lists never repeat.
            let request = ValidationFixture.request(extra: [("authorization", value), ("x-push", String(index))])
            let outcome = gateway.handle(request, connection: connection, streamID: 1, memo: memo)
            let record = try XCTUnwrap(gateway.store.record(seq: outcome.seq))
            recorded.append(contentsOf: record.headers.filter { $0.name == "authorization" }.map(\.value))
            lists.append(record.headers)
        }
        XCTAssertEqual(recorded, sent.map(AuthorizationRedaction.redact))
        XCTAssertEqual(
            recorded, ["bearer h1.c1", "bearer h1.c1", "bearer h2.c2", "<redacted>", "<redacted>", "bearer h1.c1"])
        XCTAssertEqual(memo.redactionHits, 2, "the two back-to-back repeats")
        XCTAssertEqual(memo.payloadHits, sent.count - 1, "the same body every time")
        XCTAssertEqual(
            lists.map { $0.last?.value }, (0..<sent.count).map(String.init), "each record keeps its own list")
    }

    /// Canonically equivalent text (`é` precomposed or decomposed, `K` or the Kelvin sign) is equal
    /// for Swift's `==` but was sent differently: each record keeps its own request's bytes.
    func testEquivalentButDifferentBytesAreNotRepeats() throws {
        let gateway = Gateway(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(devices: []),
            options: ValidationOptions())
        let memo = PreviousRequest()
        let connection = PushOrigin(id: 1, listener: "s", environment: .sandbox, peer: "127.0.0.1:1")
        let sent = [("caf\u{e9}", "bearer hdr.claimsK.sig1"), ("cafe\u{301}", "bearer hdr.claims\u{212A}.sig1")]
        var recorded: [[HeaderField]] = []
        for (value, authorization) in sent {
            let request = ValidationFixture.request(extra: [("x-u", value), ("authorization", authorization)])
            let seq = gateway.handle(request, connection: connection, streamID: 1, memo: memo).seq
            recorded.append(try XCTUnwrap(gateway.store.record(seq: seq)).headers)
        }
        for (index, (value, authorization)) in sent.enumerated() {
            let fields = recorded[index]
            XCTAssertTrue(
                try XCTUnwrap(fields.first { $0.name == "x-u" }).value.utf8.elementsEqual(value.utf8), "record \(index)"
            )
            let redacted =
                String(authorization.prefix(while: { $0 != "." })) + "." + authorization.split(separator: ".")[1]
            XCTAssertTrue(
                try XCTUnwrap(fields.first { $0.name == "authorization" }).value.utf8.elementsEqual(redacted.utf8),
                "record \(index)")
        }
    }

    func testRepeatedHeaderListIsRecordedOnce() throws {
        let gateway = Gateway(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(devices: []),
            options: ValidationOptions())
        let memo = PreviousRequest()
        let connection = PushOrigin(id: 1, listener: "s", environment: .sandbox, peer: "127.0.0.1:1")
        let request = ValidationFixture.request(extra: [("authorization", "bearer h.c.s")])
        let lists = try (0..<3).map { _ in
            try XCTUnwrap(
                gateway.store.record(seq: gateway.handle(request, connection: connection, streamID: 1, memo: memo).seq)
            ).headers
        }
        XCTAssertEqual(lists[0], AuthorizationRedaction.recorded(request.headers))
        XCTAssertEqual(lists[0].last, HeaderField(name: "authorization", value: "bearer h.c"))
        XCTAssertEqual(lists[1], lists[0])
        XCTAssertEqual(lists[2], lists[0])
        XCTAssertEqual(memo.redactionHits, 0, "redacted once, for the first push: the repeats reuse the recorded list")
    }
}

/// Repeated requests reuse the checked device token; their records hold the same content as
/// records made without a memo (the store keeps its own compact copy either way).
final class PreviousRequestSharingTests: XCTestCase {
    private let connection = PushOrigin(id: 1, listener: "s", environment: .sandbox, peer: "127.0.0.1:1")

    private func records(_ requests: [HTTP2Request], memo: PreviousRequest?) throws -> [DeliveryRecord] {
        let gateway = Gateway(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(devices: []), options: ValidationOptions())
        return try requests.map { request in
            let outcome = gateway.handle(request, connection: connection, streamID: 1, memo: memo)
            return try XCTUnwrap(gateway.store.record(seq: outcome.seq))
        }
    }

    func testRepeatedRequestsAreRecordedAsWithoutAMemo() throws {
        let upper = String(repeating: "AB", count: 32)
        let requests = [
            ValidationFixture.request(token: upper), ValidationFixture.request(token: upper),
            ValidationFixture.request(token: upper, body: #"{"aps":{"alert":"other"}}"#),
            ValidationFixture.request(token: upper.lowercased(), extra: [("x-a", "1")]),
        ]
        let shared = try records(requests, memo: PreviousRequest())
        let separate = try records(requests, memo: nil)
        for (a, b) in zip(shared, separate) {  // the same content either way
            XCTAssertEqual(a.payload, b.payload)
            XCTAssertEqual(a.headers, b.headers)
            XCTAssertEqual(a.verdict, b.verdict)
        }
        XCTAssertEqual(shared.map { $0.verdict.deviceToken }, Array(repeating: upper.lowercased(), count: 4))
    }

    /// `handle(taking:)` keeps the request in the memo without a copy and hands back the push
    /// before it (itself for a repeat, which the memo has already): the same records and
    /// answers as `handle(_:)`, and repeats are still found.
    func testTakingTheRequestTradesItForThePreviousOne() throws {
        let other = String(repeating: "c3d4", count: 16)
        let requests = [
            ValidationFixture.request(), ValidationFixture.request(token: other),
            ValidationFixture.request(token: other), ValidationFixture.request(body: #"{"aps":{"alert":"x"}}"#),
            ValidationFixture.request(removing: ["apns-topic"]),
        ]
        let taken = PreviousRequest()
        let takingGateway = Gateway(
            store: DeliveryStore(capacity: 10), registry: DeviceRegistry(devices: []), options: ValidationOptions())
        let expected = try records(requests, memo: PreviousRequest())
        var previousPath = ""
        for (index, request) in requests.enumerated() {
            var handed = request
            var profile: StreamProfileState?
            let decision = takingGateway.handle(
                taking: &handed, connection: connection, streamID: 1, memo: taken,
                credentials: NoCredentialCheck.shared, streamProfile: &profile)
            let record = try XCTUnwrap(takingGateway.store.record(seq: decision.seq))
            XCTAssertEqual(record.payload, expected[index].payload, "push \(index + 1)")
            XCTAssertEqual(record.headers, expected[index].headers, "push \(index + 1)")
            XCTAssertEqual(record.verdict, expected[index].verdict, "push \(index + 1)")
            XCTAssertEqual(record.status, expected[index].status, "push \(index + 1)")
            if index == 2 {
                XCTAssertEqual(handed.path, request.path, "a repeat is handed back as it is")
            } else {
                XCTAssertEqual(handed.path, previousPath, "push \(index + 1) hands back the one before")
                previousPath = request.path
            }
        }
        XCTAssertEqual(taken.verdictHits, 1, "the third push repeats the second")
    }

    func testTokenOptionsArePartOfTheRepeat() {
        let memo = PreviousRequest()
        let token = Substring(String(repeating: "ab", count: 32))
        XCTAssertEqual(memo.normalizedToken(token, options: ValidationOptions()), String(token))
        XCTAssertNil(memo.normalizedToken(token, options: ValidationOptions(tokenLength: 32)), "another exact length")
        XCTAssertEqual(memo.normalizedToken(token, options: ValidationOptions()), String(token))
        XCTAssertNil(memo.normalizedToken("zz", options: ValidationOptions()))
        XCTAssertNil(memo.normalizedToken("zz", options: ValidationOptions()))
    }
}
