import APNsCore
import JSONInput

/// A virtual device with one app on it (docs/device-model.md §1): what the lifecycle
/// (`DeviceLifecycle`) and the device's handling of a push (`DeviceReaction`) read.
///
/// JSON (wire names in `CodingKeys`), decoded by `StrictJSONDecoder`, so unknown keys get a "did
/// you mean" and errors name the field:
///
/// ```json
/// {"token": "a1b2...", "topic": "com.example.app", "environment": "sandbox",
///  "connectivity": "online", "appState": "background",
///  "settings": {"authorized": true, "alert": true, "badge": true, "sound": false},
///  "capabilities": {"remoteNotificationBackgroundMode": true, "serviceExtension": false},
///  "categories": [{"identifier": "MEETING", "customDismissAction": true,
///                  "actions": [{"identifier": "ACCEPT", "title": "Accept", "options": ["foreground"]},
///                              {"identifier": "REPLY", "title": "Reply", "textInput": true}]}],
///  "foregroundPresentation": ["banner", "sound"], "installed": true,
///  "channels": ["dHN0LXNyY2gtY2hubA=="]}
/// ```
///
/// `token`, `topic` and `environment` are required; the rest default to an online, installed app in
/// the background with every setting on, no capabilities, no categories and an empty foreground
/// presentation, subscribed to no broadcast channel. Refused: a token that is not even-length hexadecimal (at most 200 characters),
/// an empty topic, an unknown enum name (`appState`, `connectivity`, options), a category
/// identifier repeated (`categories[N].identifier`), an action identifier repeated within a
/// category (`categories[N].actions[M].identifier`), an action option repeated
/// (`categories[N].actions[M].options[K]`) and a presentation option repeated
/// (`foregroundPresentation[N]`), and a channel ID that is empty or repeated (`channels[N]`;
/// whether it names a live channel of the device's app is the control API's check, against the
/// channel store: docs/broadcast.md §5).
public struct VirtualDevice: Sendable, Hashable, Codable {
    /// The device token, lowercase hexadecimal.
    public var token: String
    /// The app's bundle ID: the `apns-topic` of its alert and background pushes.
    public var topic: String
    /// The environment that issued the token.
    public var environment: APNsEnvironment
    /// Online, offline or in low power.
    public var connectivity: Connectivity
    /// Foreground, background, suspended, not running or force-quit.
    public var appState: AppState
    /// The user's notification settings for the app.
    public var settings: NotificationSettings
    /// Background mode and service extension.
    public var capabilities: DeviceCapabilities
    /// The categories the app registered; identifiers are unique.
    public var categories: [NotificationCategory]
    /// What the app's `willPresent` passes back for a notification in the foreground
    /// (docs/device-model.md §3.1); empty by default, as a delegate without that method.
    public var foregroundPresentation: [PresentationOption]
    /// Whether the app is installed; a removed app's pushes are "Discarded - Token Unregistered".
    public var installed: Bool
    /// The broadcast channels (`apns-channel-id`s of the app's channels in its environment) the
    /// device is subscribed to, as its Live Activities are: a broadcast accepted on one of them
    /// reaches it (docs/broadcast.md §5). In the order given; no repeats.
    public var channels: [String]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case token, topic, environment, connectivity, appState, settings, capabilities, categories
        case foregroundPresentation, installed, channels
    }

    public init(
        token: String, topic: String, environment: APNsEnvironment = .sandbox, connectivity: Connectivity = .online,
        appState: AppState = .background, settings: NotificationSettings = NotificationSettings(),
        capabilities: DeviceCapabilities = DeviceCapabilities(), categories: [NotificationCategory] = [],
        foregroundPresentation: [PresentationOption] = [], installed: Bool = true, channels: [String] = []
    ) {
        self.token = token
        self.topic = topic
        self.environment = environment
        self.connectivity = connectivity
        self.appState = appState
        self.settings = settings
        self.capabilities = capabilities
        self.categories = categories
        self.foregroundPresentation = foregroundPresentation
        self.installed = installed
        self.channels = channels
    }

    /// Reads the JSON object (see the type's comment for the keys, defaults and refusals).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .token)
        guard let token = DeviceTokenRule.normalized(text, options: ValidationOptions()) else {
            throw InputErrorAt.key(
                CodingKeys.token, in: decoder,
                "expected even-length hexadecimal of at most 200 characters, got \(InputError.quoted(text))")
        }
        self.token = token
        topic = try container.decode(String.self, forKey: .topic)
        if topic.isEmpty { throw InputErrorAt.key(CodingKeys.topic, in: decoder, "must not be empty") }
        environment = try container.decode(APNsEnvironment.self, forKey: .environment)
        connectivity = try container.decodeIfPresent(Connectivity.self, forKey: .connectivity) ?? .online
        appState = try container.decodeIfPresent(AppState.self, forKey: .appState) ?? .background
        settings = try container.decodeIfPresent(NotificationSettings.self, forKey: .settings) ?? NotificationSettings()
        capabilities =
            try container.decodeIfPresent(DeviceCapabilities.self, forKey: .capabilities) ?? DeviceCapabilities()
        categories = try container.decodeIfPresent([NotificationCategory].self, forKey: .categories) ?? []
        foregroundPresentation =
            try container.decodeIfPresent([PresentationOption].self, forKey: .foregroundPresentation) ?? []
        installed = try container.decodeIfPresent(Bool.self, forKey: .installed) ?? true
        channels = try container.decodeIfPresent([String].self, forKey: .channels) ?? []
        if let empty = channels.firstIndex(where: \.isEmpty) {
            throw InputErrorAt.path(decoder.codingPath, "channels[\(empty)]", "expected a channel ID, got \"\"")
        }
        if let repeated = InputErrorAt.firstRepeat(channels) {
            throw InputErrorAt.path(
                decoder.codingPath, "channels[\(repeated.index)]",
                "duplicate channel \(InputError.quoted(repeated.value)) (also channels[\(repeated.first)])")
        }
        if let repeated = InputErrorAt.firstRepeat(foregroundPresentation.map(\.rawValue)) {
            throw InputErrorAt.path(
                decoder.codingPath, "foregroundPresentation[\(repeated.index)]",
                "duplicate presentation option \(InputError.quoted(repeated.value)) "
                    + "(also foregroundPresentation[\(repeated.first)])")
        }
        if let repeated = InputErrorAt.firstRepeat(categories.map(\.identifier)) {
            throw InputErrorAt.path(
                decoder.codingPath, "categories[\(repeated.index)].identifier",
                "duplicate category identifier \(InputError.quoted(repeated.value)) (also categories[\(repeated.first)])"
            )
        }
    }

    /// The registered category named `identifier` (`aps.category`), if any.
    public func category(_ identifier: String) -> NotificationCategory? {
        categories.first { $0.identifier == identifier }
    }
}
