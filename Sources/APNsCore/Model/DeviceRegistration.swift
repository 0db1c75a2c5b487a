/// A device token known to the registry (configured or registered through the control API).
public struct DeviceRegistration: Sendable, Equatable, Codable {
    /// The device token, lowercase hexadecimal.
    public var token: String
    /// The topic (bundle ID) the token belongs to; `nil` matches any topic.
    public var topic: String?
    /// The environment that issued the token.
    public var environment: APNsEnvironment
    /// When set, the token is no longer valid for its topic since this moment, in milliseconds
    /// since the Unix epoch: pushes get 410 `Unregistered` with this `timestamp`.
    public var unregisteredAt: Int64?
    /// When true, pushes get 410 `ExpiredToken` (timestamp: `unregisteredAt`, or the time of
    /// marking when that is absent).
    public var expired: Bool

    public init(
        token: String, topic: String? = nil, environment: APNsEnvironment,
        unregisteredAt: Int64? = nil, expired: Bool = false
    ) {
        self.token = token
        self.topic = topic
        self.environment = environment
        self.unregisteredAt = unregisteredAt
        self.expired = expired
    }
}

/// Whether tokens the registry does not know are accepted.
public enum RegistryMode: String, Sendable, Codable, CaseIterable {
    /// Any well-formed token is accepted (default).
    case open
    /// Unknown tokens get 400 BadDeviceToken; tokens of another topic DeviceTokenNotForTopic;
    /// tokens of the other environment BadDeviceToken (docs/apns-behaviour.md §9).
    case closed
}
