import APNsCore
import Broadcast
import HTTPFields
import Synchronization
import XCTest

/// The channel and broadcast checks (docs/broadcast.md §3): one row per reason a request can
/// cause, the accepted rows, the order of checks, node-apn 7.1's and APNSwift's shapes.
final class BroadcastServiceTests: XCTestCase {
    static let bundle = "com.example.app"
    static let requestID = "123e4567-e89b-12d3-a456-426614174000"
    static let update = #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"score":1}}}"#

    /// A service with one channel of each policy: `stored` (1) and `unstored` (0).
    func makeService(_ options: BroadcastOptions = BroadcastOptions(), limit: Int = 10_000)
        -> (service: BroadcastService, stored: String, unstored: String)
    {
        let service = BroadcastService(
            options: options, store: ChannelStore(limit: limit),
            makeRequestID: { "00000000-0000-4000-8000-000000000000" }
        )
        let stored = try! service.store.create(
            bundleID: Self.bundle, environment: .sandbox, policy: .mostRecentMessageStored, nowMilliseconds: 0
        ).get().id
        let unstored = try! service.store.create(
            bundleID: Self.bundle, environment: .sandbox, policy: .noMessageStored, nowMilliseconds: 0
        ).get().id
        return (service, stored, unstored)
    }

    func request(_ method: String, _ path: String, _ headers: [(String, String)] = [], body: String = "")
        -> HTTP2Request
    {
        HTTP2Request(
            method: method, path: path, headers: headers.map { HeaderField(name: $0.0, value: $0.1) },
            body: Array(body.utf8))
    }

    func send(_ channel: String, _ extra: [(String, String)] = [], body: String = update) -> HTTP2Request {
        request(
            "POST", "/4/broadcasts/apps/\(Self.bundle)",
            [("apns-channel-id", channel), ("apns-push-type", "liveactivity")] + extra, body: body)
    }

    func handle(
        _ service: BroadcastService, _ request: HTTP2Request, environment: APNsEnvironment = .sandbox,
        auth: BroadcastReason? = nil
    ) -> BroadcastAnswer {
        service.handle(request, environment: environment, nowMilliseconds: 5000, authorize: { _ in auth })
    }

    /// One row per reason a request can cause; each row's request is otherwise valid.
    func testOneRowPerReason() {
        let (_, stored, unstored) = makeService()
        let channels = "/1/apps/\(Self.bundle)/channels"
        let create = #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#
        struct Row {
            var request: HTTP2Request
            var reason: BroadcastReason
            var options = BroadcastOptions()
            var auth: BroadcastReason? = nil
            var limit = 10_000
        }
        let big = #"{"aps":{"timestamp":1,"event":"end"},"pad":""# + String(repeating: "x", count: 5100) + "\"}"
        let rows: [Row] = [
            Row(request: request("GET", "/1/apps/\(Self.bundle)/nothing"), reason: .badPath),
            Row(request: request("GET", "/1/apps/com..x/channels"), reason: .badPath),
            Row(request: request("PUT", channels), reason: .methodNotAllowed),
            Row(
                request: request("GET", channels, [("apns-channel-id", stored)]), reason: .missingProviderToken,
                auth: .missingProviderToken),
            Row(
                request: request("GET", channels, [("apns-channel-id", stored)]), reason: .expiredProviderToken,
                auth: .expiredProviderToken),
            Row(
                request: request("GET", channels, [("apns-channel-id", stored)]), reason: .invalidProviderToken,
                auth: .invalidProviderToken),
            Row(
                request: request("GET", channels, [("apns-channel-id", stored)]), reason: .badCertificate,
                auth: .badCertificate),
            Row(
                request: request("GET", channels, [("apns-channel-id", stored)]), reason: .badCertificateEnvironment,
                auth: .badCertificateEnvironment),
            Row(request: send(stored), reason: .topicMismatch, auth: .topicMismatch),
            Row(
                request: request("GET", "/1/apps/\(Self.bundle).push-type.liveactivity/all-channels"),
                reason: .topicDisallowed),
            Row(
                request: send(stored), reason: .featureNotEnabled,
                options: BroadcastOptions(disabledBundleIDs: [Self.bundle])),
            Row(request: request("GET", channels), reason: .missingChannelID),
            Row(request: request("DELETE", channels, [("apns-channel-id", "not base64!")]), reason: .badChannelID),
            Row(request: request("GET", channels, [("apns-channel-id", "AAAA")]), reason: .channelNotRegistered),
            Row(request: send(stored, [("apns-request-id", "nope")]), reason: .badMessageID),
            Row(request: send(stored, [("apns-id", "nope")]), reason: .badMessageID),
            Row(
                request: request(
                    "POST", "/4/broadcasts/apps/\(Self.bundle)", [("apns-channel-id", stored)],
                    body: Self.update), reason: .missingPushType),
            Row(
                request: send(stored, [("apns-push-type", "alert")]).replacingFirst("apns-push-type", "alert"),
                reason: .invalidPushType),
            Row(request: send(unstored, [("apns-expiration", "1700000000")]), reason: .badExpirationDate),
            Row(request: send(stored, [("apns-expiration", "-1")]), reason: .badExpirationDate),
            Row(request: send(stored, [("apns-priority", "7")]), reason: .badPriority),
            Row(
                request: send(stored, [("apns-priority", "1")]), reason: .badPriority,
                options: BroadcastOptions(acceptsPriority1: false)),
            Row(request: send(stored, body: big), reason: .payloadTooLarge),
            Row(request: send(stored, body: ""), reason: .payloadEmpty),
            Row(request: send(stored, body: "{not json"), reason: .badRequestPayload),
            Row(request: send(stored, body: "[1]"), reason: .badRequestPayload),
            Row(
                request: send(stored, body: #"{"aps":{"timestamp":1,"event":"start"}}"#), reason: .badRequestParams,
                options: BroadcastOptions(rejectsStartEvent: true)),
            Row(
                request: send(stored, body: #"{"aps":{"event":"end"}}"#), reason: .badRequestParams,
                options: BroadcastOptions(lintsAsErrors: true)),
            Row(request: request("POST", channels, body: "{"), reason: .badRequestPayload),
            Row(
                request: request(
                    "POST", channels, body: #"{"message-storage-policy":1,"push-type":"LiveActivity","x":1}"#),
                reason: .badRequestParams),
            Row(
                request: request("POST", channels, body: #"{"message-storage-policy":2,"push-type":"LiveActivity"}"#),
                reason: .badRequestParams),
            Row(request: request("POST", channels), reason: .badRequestParams),
            Row(
                request: request("POST", channels, body: #"{"message-storage-policy":1}"#), reason: .badRequestParams,
                options: BroadcastOptions(legacyAPNSwiftForms: false)),
            Row(
                request: request("POST", channels, body: #"{"message-storage-policy":1,"push-type":"alert"}"#),
                reason: .invalidPushType),
            Row(request: request("POST", channels, body: create), reason: .cannotCreateChannelConfig, limit: 2),
        ]
        for row in rows {
            // A fresh service per row, with the row's options and the same two channels' IDs.
            let ids = [stored, unstored]
            let next = IDSequence(ids)
            let service = BroadcastService(
                options: row.options, store: ChannelStore(limit: row.limit, makeID: { next.make() }),
                makeRequestID: { "00000000-0000-4000-8000-000000000000" })
            _ = service.store.create(
                bundleID: Self.bundle, environment: .sandbox, policy: .mostRecentMessageStored, nowMilliseconds: 0)
            _ = service.store.create(
                bundleID: Self.bundle, environment: .sandbox, policy: .noMessageStored, nowMilliseconds: 0)
            let answer = handle(service, row.request, auth: row.auth)
            let label = "\(row.request.method) \(row.request.path) \(row.request.headers) -> \(row.reason)"
            XCTAssertEqual(answer.reason, row.reason, label)
            XCTAssertEqual(answer.status, row.reason.status, label)
            XCTAssertEqual(answer.body, Array(#"{"reason":"\#(row.reason.rawValue)"}"#.utf8), label)
            XCTAssertEqual(
                answer.headers,
                [
                    HeaderField(name: "content-type", value: "application/json"),
                    HeaderField(name: "apns-request-id", value: answer.requestID),
                ], label)
        }
        let causable = Set(rows.map(\.reason))
        // The reasons no request causes by itself: a fault rule or the server answers them.
        let notCaused: Set<BroadcastReason> = [
            .tooManyRequests, .tooManyProviderTokenUpdates, .internalServerError, .serviceUnavailable, .shutdown,
            // The credential check's other 403s (the rows above stand for them: `authorize` answers).
            .forbidden, .unrelatedKeyIDInToken, .badEnvironmentKeyIDInToken,
        ]
        XCTAssertEqual(causable.union(notCaused), Set(BroadcastReason.allCases))
    }

    final class IDSequence: Sendable {
        let ids: [String]
        let index = Mutex(0)
        init(_ ids: [String]) { self.ids = ids }
        func make() -> String {
            index.withLock { i in
                defer { i += 1 }
                return i < ids.count ? ids[i] : "ID\(i)AA="
            }
        }
    }

    func testAcceptedRows() throws {
        let (service, stored, unstored) = makeService()
        let channels = "/1/apps/\(Self.bundle)/channels"
        // Create (Apple's body), 201 with both IDs, no body.
        var answer = handle(
            service,
            request(
                "POST", channels, [("apns-request-id", Self.requestID)],
                body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#))
        XCTAssertEqual(answer.status, 201)
        let made = try XCTUnwrap(answer.channelID)
        XCTAssertEqual(
            answer.headers,
            [
                HeaderField(name: "apns-request-id", value: Self.requestID),
                HeaderField(name: "apns-channel-id", value: made),
            ])
        XCTAssertEqual(answer.body, [])
        XCTAssertEqual(answer.requestIDHeader, "apns-request-id")
        XCTAssertEqual(answer.channel?.storagePolicy, .noMessageStored)
        // Read: 200 with the channel's body.
        answer = handle(service, request("GET", channels, [("apns-channel-id", made)]))
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(
            String(decoding: answer.body, as: UTF8.self), #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#)
        XCTAssertEqual(answer.requestID, "00000000-0000-4000-8000-000000000000")
        XCTAssertNil(answer.requestIDHeader)
        // List.
        answer = handle(service, request("GET", "/1/apps/\(Self.bundle)/all-channels"))
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(
            String(decoding: answer.body, as: UTF8.self), #"{"channels":["\#(stored)","\#(unstored)","\#(made)"]}"#)
        // Send: 200, request ID from apns-id (the token sample), priority and expiration read.
        answer = handle(
            service,
            send(stored, [("apns-id", Self.requestID), ("apns-priority", "5"), ("apns-expiration", "1700000000")]))
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.headers, [HeaderField(name: "apns-request-id", value: Self.requestID)])
        XCTAssertEqual(answer.requestIDHeader, "apns-id")
        XCTAssertEqual(answer.priority, 5)
        XCTAssertEqual(answer.expiration, 1_700_000_000)
        XCTAssertEqual(answer.lints, [])
        XCTAssertEqual(answer.route?.operation, .sendBroadcast)
        // Any push-type case; priority 1; expiration 0 on a no-storage channel; lints recorded.
        for (type, priority) in [("LiveActivity", "1"), ("Liveactivity", "10")] {
            answer = handle(
                service,
                send(unstored, [("apns-priority", priority), ("apns-expiration", "0")]).replacingFirst(
                    "apns-push-type", type))
            XCTAssertEqual(answer.status, 200, type)
        }
        answer = handle(service, send(stored, body: #"{"aps":{"timestamp":1,"event":"start"}}"#))
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.lints, [.eventStart])
        // Delete: 204, then not registered, in either path form.
        answer = handle(service, request("DELETE", channels, [("apns-channel-id", made)]))
        XCTAssertEqual(answer.status, 204)
        XCTAssertEqual(answer.body, [])
        XCTAssertEqual(
            handle(service, request("DELETE", channels, [("apns-channel-id", made)])).reason, .channelNotRegistered)
        XCTAssertEqual(handle(service, send(made)).reason, .channelNotRegistered)
    }

    func testChannelsAreNotSharedAcrossEnvironments() {
        let (service, stored, _) = makeService()
        XCTAssertEqual(handle(service, send(stored), environment: .production).reason, .channelNotRegistered)
        XCTAssertEqual(handle(service, send(stored), environment: .sandbox).status, 200)
    }

    /// node-apn 7.1: string policy, lowercase push type, `apns-priority: 10` on channel calls,
    /// bodies on GET and DELETE.
    func testNodeAPNShapes() throws {
        let (service, _, _) = makeService()
        let channels = "/1/apps/\(Self.bundle)/channels"
        let body = #"{"message-storage-policy":"1","push-type":"liveactivity"}"#
        let created = handle(service, request("POST", channels, [("apns-priority", "10")], body: body))
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(created.channel?.storagePolicy, .mostRecentMessageStored)
        let id = try XCTUnwrap(created.channelID)
        let read = handle(
            service, request("GET", channels, [("apns-priority", "10"), ("apns-channel-id", id)], body: body))
        XCTAssertEqual(read.status, 200)
        XCTAssertEqual(
            handle(
                service, request("GET", "/1/apps/\(Self.bundle)/all-channels", [("apns-priority", "10")], body: body)
            )
            .status, 200)
        XCTAssertEqual(
            handle(
                service, request("DELETE", channels, [("apns-priority", "10"), ("apns-channel-id", id)], body: body)
            )
            .status, 204)
    }

    /// APNSwift 234d745: create without push-type, the channel ID in the path.
    func testAPNSwiftOlderShapes() throws {
        let (service, _, _) = makeService()
        let created = handle(
            service, request("POST", "/1/apps/\(Self.bundle)/channels", body: #"{"message-storage-policy":1}"#))
        XCTAssertEqual(created.status, 201)
        let id = try XCTUnwrap(created.channelID)
        let escaped = id.replacingOccurrences(of: "/", with: "%2F").replacingOccurrences(of: "+", with: "%2B")
            .replacingOccurrences(of: "=", with: "%3D")
        XCTAssertEqual(handle(service, request("GET", "/1/apps/\(Self.bundle)/channels/\(escaped)")).status, 200)
        XCTAssertEqual(handle(service, request("DELETE", "/1/apps/\(Self.bundle)/channels/\(escaped)")).status, 204)
    }

    /// The order: path, then credentials, then the bundle ID, then the channel, then the rest.
    func testOrderOfChecks() {
        let (service, _, _) = makeService(BroadcastOptions(disabledBundleIDs: [Self.bundle]))
        let bad = send("AAAA", [("apns-priority", "7"), ("apns-request-id", "x")], body: "")
        XCTAssertEqual(
            handle(service, request("PUT", "/4/broadcasts/apps/\(Self.bundle)"), auth: .missingProviderToken).reason,
            .methodNotAllowed)
        XCTAssertEqual(handle(service, bad, auth: .missingProviderToken).reason, .missingProviderToken)
        XCTAssertEqual(handle(service, bad).reason, .featureNotEnabled)
        let (open, openStored, _) = makeService()
        XCTAssertEqual(handle(open, bad).reason, .channelNotRegistered)
        XCTAssertEqual(
            handle(open, send(openStored, [("apns-priority", "7"), ("apns-request-id", "x")], body: "")).reason,
            .badMessageID)
        XCTAssertEqual(handle(open, send(openStored, [("apns-priority", "7")], body: "")).reason, .badPriority)
        XCTAssertEqual(
            handle(
                open,
                send(openStored, [("apns-priority", "7"), ("apns-expiration", "x")]).replacingFirst(
                    "apns-push-type", "x")
            )
            .reason, .invalidPushType)
        XCTAssertEqual(
            handle(open, send(openStored, [("apns-priority", "7"), ("apns-expiration", "x")])).reason,
            .badExpirationDate)
    }

    /// A create or delete that `proceed` holds back (a fault answers) changes nothing.
    func testProceedFalseLeavesTheStoreAsItIs() {
        let (service, stored, _) = makeService()
        let channels = "/1/apps/\(Self.bundle)/channels"
        var asked: [BroadcastOperation?] = []
        let created = service.handle(
            request("POST", channels, body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#),
            environment: .sandbox, nowMilliseconds: 0, authorize: { _ in nil },
            proceed: {
                asked.append($0.route?.operation)
                return false
            })
        XCTAssertEqual(created.status, 201)
        XCTAssertNil(created.channelID)
        XCTAssertEqual(service.store.channels(bundleID: Self.bundle, environment: .sandbox).count, 2)
        let deleted = service.handle(
            request("DELETE", channels, [("apns-channel-id", stored)]), environment: .sandbox, nowMilliseconds: 0,
            authorize: { _ in nil },
            proceed: {
                asked.append($0.route?.operation)
                return false
            })
        XCTAssertEqual(deleted.status, 204)
        XCTAssertNotNil(service.store.channel(stored, bundleID: Self.bundle, environment: .sandbox))
        XCTAssertEqual(asked, [.createChannel, .deleteChannel])
        // Not asked for reads, lists and sends.
        _ = service.handle(send(stored), environment: .sandbox, nowMilliseconds: 0, authorize: { _ in nil }) { _ in
            XCTFail("asked for a send")
            return true
        }
    }

    func testTheCredentialCheckIsAskedAboutThePathsBundleID() {
        let (service, stored, _) = makeService()
        var asked: [String] = []
        _ = service.handle(send(stored), environment: .sandbox, nowMilliseconds: 0) {
            asked.append($0)
            return nil
        }
        XCTAssertEqual(asked, [Self.bundle])
    }

    /// A create body longer than the transport keeps (16 KiB) is 413 `PayloadTooLarge`, not the
    /// `BadRequestPayload` its cut start would parse to; one just under the cut is read whole.
    func testACreateBodyCutByTheTransportIsTooLarge() {
        let (service, _, _) = makeService()
        let whole = #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#
        let padded = whole.dropLast() + String(repeating: " ", count: 20_000) + "}"
        var cut = request("POST", "/1/apps/\(Self.bundle)/channels", body: String(padded.prefix(16 * 1024)))
        cut.bodyLength = padded.utf8.count
        let answer = handle(service, cut)
        XCTAssertEqual(answer.status, 413)
        XCTAssertEqual(answer.reason, .payloadTooLarge)
        let kept = whole.dropLast() + String(repeating: " ", count: 16 * 1024 - whole.utf8.count) + "}"
        XCTAssertEqual(kept.utf8.count, 16 * 1024)
        XCTAssertEqual(
            handle(service, request("POST", "/1/apps/\(Self.bundle)/channels", body: String(kept))).status, 201)
    }
}

extension HTTP2Request {
    /// The request with the first `name` field's value replaced (or added when absent).
    func replacingFirst(_ name: String, _ value: String) -> HTTP2Request {
        var copy = self
        if let index = copy.headers.firstIndex(where: { $0.name == name }) {
            copy.headers[index].value = value
            copy.headers.removeAll { $0.name == name && $0.value != value }
        } else {
            copy.headers.append(HeaderField(name: name, value: value))
        }
        return copy
    }

}
