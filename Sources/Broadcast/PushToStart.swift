import APNsCore
import JSONInput

/// A push-to-start Live Activity on a channel: a device push (`/3/device/<push-to-start token>`,
/// `apns-push-type: liveactivity`) whose `aps.event` is `start` and whose `aps.input-push-channel`
/// names the broadcast channel the new activity listens on (docs/broadcast.md A4: "Starting an
/// activity on a channel uses a push-to-start payload ... with input-push-channel"; A5: an
/// invalid channel ID fails to start the activity). Accepted for a virtual device, it subscribes
/// that device to the channel; a channel that is no live channel of the push's app in its
/// environment is a lint instead (docs/broadcast.md §5).
public enum PushToStart {
    /// The suffix of a Live Activity topic (`<bundle>.push-type.liveactivity`).
    static let topicSuffix = ".push-type.liveactivity"

    /// The channel ID `aps.input-push-channel` names when `aps.event` is `start`; nil for a body
    /// that is no JSON object, another event, or no such string.
    public static func channel(in body: [UInt8]) -> String? {
        guard case .object(let root)? = try? JSONNode(decoding: body), case .object(let aps)? = root["aps"],
            case .string("start")? = aps["event"], case .string(let id)? = aps["input-push-channel"]
        else { return nil }
        return id
    }

    /// The bundle ID of a Live Activity topic (the topic without `.push-type.liveactivity`), the
    /// topic as it is otherwise.
    public static func bundleID(ofTopic topic: String) -> String {
        topic.hasSuffix(topicSuffix) ? String(topic.dropLast(topicSuffix.count)) : topic
    }

    /// The lint of a push-to-start whose `input-push-channel` is no live channel of `bundleID`
    /// in the listener's environment.
    public static func lint(channel id: String, bundleID: String) -> String {
        "aps.input-push-channel \"\(id)\" is no channel of \(bundleID) in this environment: the Live Activity "
            + "would fail to start (ActivityKit; create the channel first)"
    }

    /// The check the gateway makes of an accepted-so-far Live Activity push (`Gateway`'s
    /// `pushToStartLint`): `lint(channel:bundleID:)` when its body starts an activity on a channel
    /// `store` does not hold for the push's app in `environment`; nil otherwise.
    public static func lintCheck(_ store: ChannelStore)
        -> @Sendable ([UInt8], ValidationResult, APNsEnvironment) ->
        String?
    {
        { body, verdict, environment in
            guard let id = channel(in: body) else { return nil }
            let bundle = bundleID(ofTopic: verdict.topic ?? "")
            guard store.channel(id, bundleID: bundle, environment: environment) == nil else { return nil }
            return lint(channel: id, bundleID: bundle)
        }
    }
}
