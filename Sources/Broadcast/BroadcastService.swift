import APNsCore
import Foundation
import HTTPFields
import JSONInput

/// The channel-management and broadcast APIs' checks and answers, in the order APNs checks
/// (docs/broadcast.md §3, "Order of checks"). Pure: no I/O; the credential check and the clock
/// come in as parameters. Thread-safe (the store is).
///
/// Order, first failing check answers:
/// 1. route: `BadPath` (unknown path under `/1/` or `/4/`, or a bundle ID that is no topic),
///    `MethodNotAllowed`; as on `/3/device`, method and path outrank credentials;
/// 2. credentials (`authorize`): the 403 reasons, `TopicMismatch` when they do not cover the
///    bundle ID (Apple's broadcast page: "APNs authenticates first");
/// 3. the bundle ID: a push-type suffix → `TopicDisallowed`; a bundle ID without the Broadcast
///    capability → `FeatureNotEnabled`;
/// 4. the channel (read, delete, send): `MissingChannelId`, `BadChannelId`,
///    `ChannelNotRegistered` ("then validates the channel ID");
/// 5. the rest: `BadMessageId` (request ID); on a send `MissingPushType`, `InvalidPushType`,
///    `BadExpirationDate`, `BadPriority` (APNSwift's test-server order for these),
///    `PayloadTooLarge`, `PayloadEmpty`, `BadRequestPayload`, then the lints as errors; on a
///    create the body (`BadRequestPayload`, `BadRequestParams`, `InvalidPushType`), then
///    `CannotCreateChannelConfig`.
public final class BroadcastService: Sendable {
    public let options: BroadcastOptions
    public let store: ChannelStore
    private let makeRequestID: @Sendable () -> String

    /// - Parameters:
    ///   - store: the channels; default a store of `options.channelLimit` per app and environment
    ///     and `options.totalChannelLimit` in all, holding `options.channels` (a given store gets
    ///     none: it is the caller's).
    ///   - makeRequestID: a new lowercase UUID for a request without one (tests inject a fixed one).
    public init(
        options: BroadcastOptions = BroadcastOptions(), store: ChannelStore? = nil,
        makeRequestID: (@Sendable () -> String)? = nil
    ) {
        self.options = options
        if let store {
            self.store = store
        } else {
            let made = ChannelStore(limit: options.channelLimit, totalLimit: options.totalChannelLimit)
            let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
            for channel in options.channels { made.add(channel, nowMilliseconds: now) }
            self.store = made
        }
        let generator = UUIDGenerator()
        self.makeRequestID = makeRequestID ?? { generator.next(uppercase: false) }
    }

    /// Decides one request whose path `BroadcastRoute.claims`, and carries out an accepted
    /// create or delete on the store.
    /// - Parameters:
    ///   - environment: the listener's environment (channels are per environment).
    ///   - authorize: the credential check for the bundle ID: nil when the credentials cover
    ///     it, else the 403 reason (or another the check answers, e.g. `TooManyProviderTokenUpdates`).
    ///   - proceed: asked, with the answer so far (route, channel), right before an accepted
    ///     create or delete changes the store; false leaves the store as it is (a fault rule
    ///     answers instead: a refused request changes nothing). Then the answer is the one it
    ///     would have been, without the change carried out.
    public func handle(
        _ request: HTTP2Request, environment: APNsEnvironment, nowMilliseconds: Int64,
        authorize: (_ bundleID: String) -> BroadcastReason?,
        proceed: (_ answer: BroadcastAnswer) -> Bool = { _ in true }
    ) -> BroadcastAnswer {
        var sentID: (header: String, value: String)?
        for name in RequestID.headerNames {
            if let value = Self.header(name, in: request) {
                sentID = (name, value)
                break
            }
        }
        let idIsValid = sentID.map { RequestID.isCanonical($0.value) } ?? false
        var answer = BroadcastAnswer(
            status: 0, reason: nil, route: nil,
            requestID: idIsValid ? sentID!.value : makeRequestID(),
            requestIDHeader: idIsValid ? sentID!.header : nil, headers: [], body: [])
        if let reason = decide(
            request, environment: environment, nowMilliseconds: nowMilliseconds, authorize: authorize,
            proceed: proceed, requestIDValid: sentID == nil || idIsValid, answer: &answer)
        {
            answer.status = reason.status
            answer.reason = reason
            answer.headers = [
                HeaderField(name: "content-type", value: "application/json"),
                HeaderField(name: "apns-request-id", value: answer.requestID),
            ]
            answer.body = ReasonJSON.bytes(reason.rawValue)
        }
        return answer
    }

    /// The checks in order; fills `answer` on success and returns nil, or returns the reason.
    private func decide(
        _ request: HTTP2Request, environment: APNsEnvironment, nowMilliseconds: Int64,
        authorize: (String) -> BroadcastReason?, proceed: (BroadcastAnswer) -> Bool, requestIDValid: Bool,
        answer: inout BroadcastAnswer
    ) -> BroadcastReason? {
        let route: BroadcastRoute
        switch BroadcastRoute.route(
            method: request.method, path: request.path, legacyPathForm: options.legacyAPNSwiftForms)
        {
        case .failure(let reason): return reason
        case .success(let found): route = found
        }
        let bundleID = route.bundleID
        guard TopicRule.isValid(bundleID) else { return .badPath }
        answer.route = route
        if let reason = authorize(bundleID) { return reason }
        if TopicRule.suffixPushType(of: bundleID) != nil { return .topicDisallowed }
        if options.disabledBundleIDs.contains(bundleID) { return .featureNotEnabled }

        var channel: Channel?
        if route.operation != .createChannel && route.operation != .listChannels {
            guard let id = route.pathChannelID ?? Self.header("apns-channel-id", in: request) else {
                return .missingChannelID
            }
            answer.channelID = id
            guard Base64.isChannelID(id) else { return .badChannelID }
            guard let found = store.channel(id, bundleID: bundleID, environment: environment) else {
                return .channelNotRegistered
            }
            channel = found
            answer.channel = found
        }
        if !requestIDValid { return .badMessageID }
        let requestIDField = HeaderField(name: "apns-request-id", value: answer.requestID)

        switch route.operation {
        case .createChannel:
            let policy: MessageStoragePolicy
            switch createPolicy(request) {
            case .failure(let reason): return reason
            case .success(let read): policy = read
            }
            guard proceed(answer) else {
                answer.status = 201
                answer.headers = [requestIDField]
                return nil
            }
            switch store.create(
                bundleID: bundleID, environment: environment, policy: policy, nowMilliseconds: nowMilliseconds)
            {
            case .failure(let reason): return reason
            case .success(let made):
                answer.channel = made
                answer.channelID = made.id
                answer.status = 201
                answer.headers = [requestIDField, HeaderField(name: "apns-channel-id", value: made.id)]
            }
        case .readChannel:
            answer.status = 200
            answer.headers = [HeaderField(name: "content-type", value: "application/json"), requestIDField]
            answer.body = channel!.readBody
        case .deleteChannel:
            // Gone between the look-up and now (another connection deleted it): not registered.
            guard !proceed(answer) || store.delete(channel!.id, bundleID: bundleID, environment: environment) else {
                return .channelNotRegistered
            }
            answer.status = 204
            answer.headers = [requestIDField]
        case .listChannels:
            let ids = store.channels(bundleID: bundleID, environment: environment).map(\.id)
            answer.status = 200
            answer.headers = [HeaderField(name: "content-type", value: "application/json"), requestIDField]
            answer.body = Self.listBody(ids)
        case .sendBroadcast:
            if let reason = checkSend(request, channel: channel!, answer: &answer) { return reason }
            answer.status = 200
            answer.headers = [requestIDField]
        }
        return nil
    }

    /// A send's headers and payload (step 5 of the order).
    private func checkSend(_ request: HTTP2Request, channel: Channel, answer: inout BroadcastAnswer)
        -> BroadcastReason?
    {
        // Apple writes Liveactivity, liveactivity and LiveActivity: any case is taken.
        guard let pushType = Self.header("apns-push-type", in: request) else { return .missingPushType }
        guard pushType.lowercased() == "liveactivity" else { return .invalidPushType }
        if let text = Self.header("apns-expiration", in: request) {
            guard let expiration = Self.decimal(text) else { return .badExpirationDate }
            // "You can only specify a 0 expiration value" on a No Message Stored channel.
            if expiration != 0 && channel.storagePolicy == .noMessageStored { return .badExpirationDate }
            answer.expiration = expiration
        }
        var priority = 10
        if let text = Self.header("apns-priority", in: request) {
            guard let number = Self.decimal(text),
                number == 10 || number == 5 || (number == 1 && options.acceptsPriority1)
            else { return .badPriority }
            priority = Int(number)
        }
        answer.priority = priority
        if request.bodyLength > BroadcastOptions.maxPayloadBytes { return .payloadTooLarge }
        if request.bodyLength == 0 { return .payloadEmpty }
        guard case .object(let object)? = try? JSONNode(decoding: request.body) else { return .badRequestPayload }
        let lints = ActivityKitLint.lints(of: object)
        answer.lints = lints
        if options.rejectsStartEvent && lints.contains(.eventStart) { return .badRequestParams }
        if options.lintsAsErrors && lints.contains(where: { $0 != .eventStart }) { return .badRequestParams }
        return nil
    }

    /// A create body's storage policy: `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}`.
    /// The policy as a number or, as node-apn 7.1's README writes it, a string (`"1"`); the push
    /// type in any case (node-apn sends `liveactivity`); absent only under `legacyAPNSwiftForms`
    /// (APNSwift 234d745 sends none). Not JSON, or JSON but no object → `BadRequestPayload`; an
    /// unknown key, a missing key, another policy → `BadRequestParams`; another push type →
    /// `InvalidPushType`. A body longer than the transport keeps (`HTTP2Settings.maxStoredBodyBytes`,
    /// 16 KiB; Apple's channel body is about 60 bytes) → 413 `PayloadTooLarge`: the bytes kept are
    /// only its start, so parsing them would call a valid body unparsable (`BadRequestPayload`).
    private func createPolicy(_ request: HTTP2Request) -> Result<MessageStoragePolicy, BroadcastReason> {
        guard request.bodyLength <= request.body.count else { return .failure(.payloadTooLarge) }
        guard !request.body.isEmpty else { return .failure(.badRequestParams) }
        guard case .object(let object)? = try? JSONNode(decoding: request.body) else {
            return .failure(.badRequestPayload)
        }
        let known: Set<String> = ["message-storage-policy", "push-type"]
        guard object.keys.allSatisfy(known.contains) else { return .failure(.badRequestParams) }
        let policy: MessageStoragePolicy?
        switch object["message-storage-policy"] {
        case .int(let number)?: policy = MessageStoragePolicy(rawValue: Int(number))
        case .string(let text)?: policy = Int(text).flatMap(MessageStoragePolicy.init(rawValue:))
        default: policy = nil
        }
        guard let policy else { return .failure(.badRequestParams) }
        switch object["push-type"] {
        case .string(let type)? where type.lowercased() == "liveactivity": return .success(policy)
        case nil where options.legacyAPNSwiftForms: return .success(policy)
        case nil: return .failure(.badRequestParams)
        default: return .failure(.invalidPushType)
        }
    }

    /// `{"channels":["<id>",...]}`. IDs are base64 (no character JSON escapes but `/`, which
    /// is left as it is).
    static func listBody(_ ids: [String]) -> [UInt8] {
        Array((#"{"channels":["# + ids.map { "\"" + $0 + "\"" }.joined(separator: ",") + "]}").utf8)
    }

    /// The first value of header `name`.
    static func header(_ name: String, in request: HTTP2Request) -> String? {
        request.headers.first(where: { $0.name == name })?.value
    }

    /// 1 to 19 ASCII digits as a number, else nil (`apns-expiration`, `apns-priority`).
    static func decimal(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(text)
    }
}
