/// The device-registry outcome for a well-formed token (docs/apns-behaviour.md §9 "Unknown device tokens",
/// "Token of the other environment", "Unregistered / expired devices").
enum RegistryRule {
    /// A registry refusal: the reason and, for 410 answers, the `timestamp` in milliseconds
    /// since the Unix epoch.
    struct Refusal: Equatable {
        var reason: Reason
        var timestamp: Int64?
    }

    /// Checks in this order: another environment → `BadDeviceToken` (A2 "verify the token
    /// matches the environment"); another topic → `DeviceTokenNotForTopic`; expired → 410
    /// `ExpiredToken` at `unregisteredAt ?? now`; unregistered → 410 `Unregistered` at
    /// `unregisteredAt`; unknown under a closed registry → `BadDeviceToken`. An `unregisteredAt`
    /// after `nowMilliseconds` is a moment still to come: until then the device is served as
    /// registered, expired or not (docs/apns-behaviour.md §9 "Unregistered / expired devices").
    static func check(
        _ registration: DeviceRegistration?, topic: String, environment: APNsEnvironment,
        mode: RegistryMode, nowMilliseconds: Int64
    ) -> Refusal? {
        guard let registration else {
            return mode == .closed ? Refusal(reason: .badDeviceToken) : nil
        }
        if registration.environment != environment { return Refusal(reason: .badDeviceToken) }
        if !topicMatches(registered: registration.topic, topic: topic) {
            return Refusal(reason: .deviceTokenNotForTopic)
        }
        if let since = registration.unregisteredAt, since > nowMilliseconds { return nil }
        if registration.expired {
            return Refusal(reason: .expiredToken, timestamp: registration.unregisteredAt ?? nowMilliseconds)
        }
        if let since = registration.unregisteredAt {
            return Refusal(reason: .unregistered, timestamp: since)
        }
        return nil
    }

    /// Decision: a device registered for bundle ID `com.x` also matches the app's suffixed topics
    /// (`com.x.voip`, `com.x.push-type.liveactivity`...), since Apple's suffixed topics belong to
    /// the same app; a registration without a topic matches every topic.
    static func topicMatches(registered: String?, topic: String) -> Bool {
        guard let registered else { return true }
        if registered == topic { return true }
        guard let bundleID = TopicRule.bundleID(of: topic) else { return false }
        return UTF8Bytes.equal(bundleID, registered)
    }
}
