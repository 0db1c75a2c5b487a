/// The user's notification settings for the app (`UNNotificationSettings`; docs/device-model.md
/// §2.3, §3.1). Every key is optional in JSON and defaults to `true`.
public struct NotificationSettings: Sendable, Hashable, Codable {
    /// The user allowed notifications for the app. When false, APNs discards alert pushes
    /// ("Discarded - Disabled").
    public var authorized: Bool
    /// Alerts (banner and list) are shown.
    public var alert: Bool
    /// The badge is applied to the app icon.
    public var badge: Bool
    /// Sounds are played.
    public var sound: Bool

    enum CodingKeys: String, CodingKey, CaseIterable {
        case authorized, alert, badge, sound
    }

    public init(authorized: Bool = true, alert: Bool = true, badge: Bool = true, sound: Bool = true) {
        self.authorized = authorized
        self.alert = alert
        self.badge = badge
        self.sound = sound
    }

    /// Reads the JSON object; absent keys default to `true`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        authorized = try container.decodeIfPresent(Bool.self, forKey: .authorized) ?? true
        alert = try container.decodeIfPresent(Bool.self, forKey: .alert) ?? true
        badge = try container.decodeIfPresent(Bool.self, forKey: .badge) ?? true
        sound = try container.decodeIfPresent(Bool.self, forKey: .sound) ?? true
    }
}
