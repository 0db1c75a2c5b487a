import APNsCore
import Broadcast
import JSONInput
import JSONSupport
import Recording

/// `/v1/channels`: the broadcast channels of every app and environment, and channels made or
/// deleted on a test's behalf (docs/broadcast.md §4), in the store the listeners serve.
extension ControlAPI {
    /// The default `limit` of `GET /v1/channels` (a page; the store holds up to
    /// `totalChannelLimit`, 100,000 by default).
    static let defaultChannelLimit = 1000

    /// `filter` made to select the record of the create that made its `channelId` as well
    /// (`DeliveryFilter.channelCreateSeq`, from the channel store; docs/broadcast.md §4): that
    /// request named no channel, yet its record carries the new ID. Unchanged without a `channelId`.
    func withChannelCreate(_ filter: DeliveryFilter) -> DeliveryFilter {
        guard let id = filter.channelID else { return filter }
        var resolved = filter
        resolved.channelCreateSeq = channels.createSeq(of: id)
        return resolved
    }

    /// `{"channels": [channel...], "count": N (in this page), "total": N (matching), "more": Bool}`,
    /// by environment, bundle ID, then creation order; `bundleId` and `environment` narrow it;
    /// at most `limit` (default `defaultChannelLimit`, 0 and up) channels, those after the channel
    /// `after` (the last ID of the previous page) when given: 400 when `after` is no live channel
    /// the filter lists (deleted since: start again from the first page).
    func listChannels(_ query: [String: String]) throws(ControlError) -> ControlResponse {
        let limit = try Self.integer("limit", in: query, default: Self.defaultChannelLimit, range: 0...Int.max)
        var environment: APNsEnvironment?
        if let text = query["environment"] {
            guard let parsed = APNsEnvironment(rawValue: text.lowercased()) else {
                throw .badRequest("environment must be sandbox or production")
            }
            environment = parsed
        }
        let bundleID = query["bundleId"]
        let listed = channels.allChannels().filter {
            (bundleID == nil || $0.bundleID == bundleID) && (environment == nil || $0.environment == environment)
        }
        var start = 0
        if let after = query["after"] {
            guard let index = listed.firstIndex(where: { $0.id == after }) else {
                throw .badRequest(
                    "after: no live channel \(InputError.quoted(after)) among those listed (deleted since? start "
                        + "again without after)")
            }
            start = index + 1
        }
        let page = listed[start...].prefix(limit)
        return ControlResponse(
            status: 200,
            json: [
                "channels": .array(page.map(json(withSubscribers:))), "count": .int(Int64(page.count)),
                "total": .int(Int64(listed.count)), "more": .bool(start + page.count < listed.count),
            ])
    }

    /// Body `ChannelBody`; 201 with the channel, 400 naming the field, or 409 at the app's
    /// channel limit (`CannotCreateChannelConfig`).
    func addChannel(body: [UInt8]) throws(ControlError) -> ControlResponse {
        let decoded = try ControlBody.decode(ChannelBody.self, from: body, form: ChannelBody.form)
        guard TopicRule.isValid(decoded.bundleID), TopicRule.suffixPushType(of: decoded.bundleID) == nil else {
            throw .badRequest("bundleId must be a bare bundle ID, got \(InputError.quoted(decoded.bundleID))")
        }
        switch channels.create(
            bundleID: decoded.bundleID, environment: decoded.environment, policy: decoded.policy,
            nowMilliseconds: Int64(credentialClock.now() * 1000))
        {
        case .success(let channel): return ControlResponse(status: 201, json: json(withSubscribers: channel))
        case .failure:
            let app = channels.channels(bundleID: decoded.bundleID, environment: decoded.environment).count
            throw ControlError(
                status: 409,
                message: app >= channels.limit
                    ? "the app has \(channels.limit) channels in \(decoded.environment.rawValue)"
                    : "the store has \(channels.totalLimit) channels in all (broadcast.totalChannelLimit)")
        }
    }

    /// 200 with the deleted channel, 404 when no live channel has this ID.
    func deleteChannel(id: String) throws(ControlError) -> ControlResponse {
        guard let channel = channels.allChannels().first(where: { $0.id == id }) else {
            throw .notFound("no channel \(InputError.quoted(id))")
        }
        channels.delete(channel.id, bundleID: channel.bundleID, environment: channel.environment)
        return ControlResponse(status: 200, json: json(withSubscribers: channel))
    }

    /// `json(_:)` with `"subscribers"` (list, create, delete answers): the tokens of the virtual devices subscribed to it, sorted
    /// (docs/broadcast.md §5).
    func json(withSubscribers channel: Channel) -> JSONNode {
        guard case .object(var object) = Self.json(channel) else { return .null }
        object["subscribers"] = .array(devices.subscribers(of: channel.id).map { .string($0) })
        return .object(object)
    }

    /// `{"id", "bundleId", "environment", "messageStoragePolicy", "pushType", "createdAt"}`.
    static func json(_ channel: Channel) -> JSONNode {
        [
            "id": .string(channel.id), "bundleId": .string(channel.bundleID),
            "environment": .string(channel.environment.rawValue),
            "messageStoragePolicy": .int(Int64(channel.storagePolicy.rawValue)), "pushType": .string("LiveActivity"),
            "createdAt": .string(ISO8601Timestamp.format(epochSeconds: Double(channel.createdAtMilliseconds) / 1000)),
        ]
    }
}
