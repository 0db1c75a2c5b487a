/// What the app was built with (docs/device-model.md §3.2, §3.3). Both keys are optional in JSON
/// and default to `false`.
public struct DeviceCapabilities: Sendable, Hashable, Codable {
    /// The "Remote notifications" background mode: needed for a `content-available` push to wake
    /// the app and call `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`.
    public var remoteNotificationBackgroundMode: Bool
    /// The app has a notification service extension (runs for `mutable-content: 1`).
    public var serviceExtension: Bool

    enum CodingKeys: String, CodingKey, CaseIterable {
        case remoteNotificationBackgroundMode, serviceExtension
    }

    public init(remoteNotificationBackgroundMode: Bool = false, serviceExtension: Bool = false) {
        self.remoteNotificationBackgroundMode = remoteNotificationBackgroundMode
        self.serviceExtension = serviceExtension
    }

    /// Reads the JSON object; absent keys default to `false`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        remoteNotificationBackgroundMode =
            try container.decodeIfPresent(Bool.self, forKey: .remoteNotificationBackgroundMode) ?? false
        serviceExtension = try container.decodeIfPresent(Bool.self, forKey: .serviceExtension) ?? false
    }
}
