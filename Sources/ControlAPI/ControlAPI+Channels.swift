import APNsCore
import Broadcast
import JSONInput
import JSONSupport

/// `/v1/channels`: the broadcast channels of every app and environment, and channels made or
/// deleted on a test's behalf (docs/broadcast.md §4), in the store the listeners serve.
extension ControlAPI {
    /// `{"channels": [channel...]}`, by environment, bundle ID, then creation order; `bundleId`
    /// and `environment` narrow it.
    func listChannels(_ query: [String: String]) throws(ControlError) -> ControlResponse {
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
        return ControlResponse(status: 200, json: ["channels": .array(listed.map(json(withSubscribers:)))])
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
            throw ControlError(
                status: 409, message: "the app has \(channels.limit) channels in \(decoded.environment.rawValue)")
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
