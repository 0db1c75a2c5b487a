import APNsCore

/// Every `reason` a channel-management request or a broadcast send can be answered with, with
/// its HTTP status (Apple, *Handling error responses from APNs*, the broadcast table;
/// docs/broadcast.md §A6).
///
/// The subset of `APNsCore.Reason` these APIs answer with (nine of them, `MissingChannelId`,
/// `ChannelNotRegistered`, `FeatureNotEnabled`..., exist only there): `apnsReason` is the
/// record's and a fault's form of it. An `Error`, to be the failure of a
/// `Result` (`ChannelStore.create`, `BroadcastRoute.route`).
public enum BroadcastReason: String, Error, Sendable, Hashable, CaseIterable, Codable {
    case featureNotEnabled = "FeatureNotEnabled"
    case missingChannelID = "MissingChannelId"
    case badChannelID = "BadChannelId"
    case channelNotRegistered = "ChannelNotRegistered"
    case badRequestParams = "BadRequestParams"
    case badRequestPayload = "BadRequestPayload"
    case payloadEmpty = "PayloadEmpty"
    case badMessageID = "BadMessageId"
    case missingPushType = "MissingPushType"
    case invalidPushType = "InvalidPushType"
    case cannotCreateChannelConfig = "CannotCreateChannelConfig"
    case badExpirationDate = "BadExpirationDate"
    case topicDisallowed = "TopicDisallowed"
    case badPriority = "BadPriority"
    case badCertificate = "BadCertificate"
    case badCertificateEnvironment = "BadCertificateEnvironment"
    case topicMismatch = "TopicMismatch"
    case missingProviderToken = "MissingProviderToken"
    case expiredProviderToken = "ExpiredProviderToken"
    case invalidProviderToken = "InvalidProviderToken"
    /// Not in Apple's broadcast table: the device-push API's other 403 reasons, which the same
    /// credential check answers (docs/apns-behaviour.md §4).
    case forbidden = "Forbidden"
    case unrelatedKeyIDInToken = "UnrelatedKeyIdInToken"
    case badEnvironmentKeyIDInToken = "BadEnvironmentKeyIdInToken"
    case badPath = "BadPath"
    case methodNotAllowed = "MethodNotAllowed"
    case payloadTooLarge = "PayloadTooLarge"
    case tooManyRequests = "TooManyRequests"
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    case internalServerError = "InternalServerError"
    case serviceUnavailable = "ServiceUnavailable"
    case shutdown = "Shutdown"

    /// The HTTP status APNs answers with this reason (docs/broadcast.md §A6): `Reason`'s, whose
    /// table holds the broadcast reasons too (one table, not two).
    public var status: Int { apnsReason.status }

    /// The `Reason` of the same name (every broadcast reason is one).
    public var apnsReason: Reason { Reason(rawValue: rawValue)! }

    /// The broadcast reason of a device-push reason (an authentication outcome, a fault's
    /// answer), nil when the broadcast table has none of that name (e.g. `BadDeviceToken`).
    public init?(_ reason: Reason) {
        self.init(rawValue: reason.rawValue)
    }
}
