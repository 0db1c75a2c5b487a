/// Every `reason` string APNs documents, with its HTTP status
/// (Apple, *Handling notification responses from APNs*; docs/apns-behaviour.md §2), and those of
/// the broadcast and channel-management APIs (Apple, *Handling error responses from APNs*;
/// docs/broadcast.md §A6), appended after the device-push ones so their codes stay put.
public enum Reason: String, Sendable, Hashable, CaseIterable, Codable {
    case badCollapseID = "BadCollapseId"
    case badDeviceToken = "BadDeviceToken"
    case badExpirationDate = "BadExpirationDate"
    case badMessageID = "BadMessageId"
    case badPriority = "BadPriority"
    case badTopic = "BadTopic"
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    case duplicateHeaders = "DuplicateHeaders"
    case idleTimeout = "IdleTimeout"
    case invalidPushType = "InvalidPushType"
    case missingDeviceToken = "MissingDeviceToken"
    case missingTopic = "MissingTopic"
    case payloadEmpty = "PayloadEmpty"
    case topicDisallowed = "TopicDisallowed"
    case badCertificate = "BadCertificate"
    case badCertificateEnvironment = "BadCertificateEnvironment"
    case expiredProviderToken = "ExpiredProviderToken"
    case forbidden = "Forbidden"
    case invalidProviderToken = "InvalidProviderToken"
    case missingProviderToken = "MissingProviderToken"
    case unrelatedKeyIDInToken = "UnrelatedKeyIdInToken"
    case badEnvironmentKeyIDInToken = "BadEnvironmentKeyIdInToken"
    case badPath = "BadPath"
    case methodNotAllowed = "MethodNotAllowed"
    case expiredToken = "ExpiredToken"
    case unregistered = "Unregistered"
    case payloadTooLarge = "PayloadTooLarge"
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    case tooManyRequests = "TooManyRequests"
    case internalServerError = "InternalServerError"
    case serviceUnavailable = "ServiceUnavailable"
    case shutdown = "Shutdown"
    // The broadcast and channel-management APIs' own (docs/broadcast.md §A6).
    case featureNotEnabled = "FeatureNotEnabled"
    case missingChannelID = "MissingChannelId"
    case badChannelID = "BadChannelId"
    case channelNotRegistered = "ChannelNotRegistered"
    case badRequestParams = "BadRequestParams"
    case badRequestPayload = "BadRequestPayload"
    case missingPushType = "MissingPushType"
    case cannotCreateChannelConfig = "CannotCreateChannelConfig"
    case topicMismatch = "TopicMismatch"

    /// The HTTP status APNs answers with this reason.
    public var status: Int {
        switch self {
        case .badCollapseID, .badDeviceToken, .badExpirationDate, .badMessageID, .badPriority,
            .badTopic, .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType,
            .missingDeviceToken, .missingTopic, .payloadEmpty, .topicDisallowed, .featureNotEnabled,
            .missingChannelID, .badChannelID, .channelNotRegistered, .badRequestParams, .badRequestPayload,
            .missingPushType, .cannotCreateChannelConfig:
            return 400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
            .invalidProviderToken, .missingProviderToken, .unrelatedKeyIDInToken,
            .badEnvironmentKeyIDInToken, .topicMismatch:
            return 403
        case .badPath: return 404
        case .methodNotAllowed: return 405
        case .expiredToken, .unregistered: return 410
        case .payloadTooLarge: return 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: return 429
        case .internalServerError: return 500
        case .serviceUnavailable, .shutdown: return 503
        }
    }

    /// The reason a fault's `respond` with a status alone gets: the one reason Apple documents
    /// for that status, or, where it documents several, its generic one (docs/apns-behaviour.md
    /// §2, "A `respond` with a status alone"): 403 `Forbidden`, 404 `BadPath`, 405
    /// `MethodNotAllowed`, 410 `Unregistered`, 413 `PayloadTooLarge`, 429 `TooManyRequests`, 500
    /// `InternalServerError`, 503 `ServiceUnavailable`. Nil for 400 (Apple documents fourteen, nine more on the broadcast API,
    /// specific reasons and no generic one) and for statuses Apple does not document.
    public static func generic(forStatus status: Int) -> Reason? {
        switch status {
        case 403: return .forbidden
        case 404: return .badPath
        case 405: return .methodNotAllowed
        case 410: return .unregistered
        case 413: return .payloadTooLarge
        case 429: return .tooManyRequests
        case 500: return .internalServerError
        case 503: return .serviceUnavailable
        default: return nil
        }
    }
}
