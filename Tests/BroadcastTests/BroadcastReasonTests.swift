import APNsCore
import Broadcast
import XCTest

/// Apple's broadcast error table (docs/broadcast.md §A6): every reason with its status.
final class BroadcastReasonTests: XCTestCase {
    func testEveryReasonHasTheStatusOfApplesTable() {
        let table: [Int: [String]] = [
            400: [
                "FeatureNotEnabled", "MissingChannelId", "BadChannelId", "ChannelNotRegistered", "BadRequestParams",
                "BadRequestPayload", "PayloadEmpty", "BadMessageId", "MissingPushType", "InvalidPushType",
                "CannotCreateChannelConfig", "BadExpirationDate", "TopicDisallowed", "BadPriority",
            ],
            403: [
                "BadCertificate", "BadCertificateEnvironment", "TopicMismatch", "MissingProviderToken",
                "ExpiredProviderToken", "InvalidProviderToken",
                // The device-push API's, from the same credential check.
                "Forbidden", "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken",
            ],
            404: ["BadPath"], 405: ["MethodNotAllowed"], 413: ["PayloadTooLarge"],
            429: ["TooManyRequests", "TooManyProviderTokenUpdates"], 500: ["InternalServerError"],
            503: ["ServiceUnavailable", "Shutdown"],
        ]
        var seen = 0
        for (status, names) in table {
            for name in names {
                XCTAssertEqual(BroadcastReason(rawValue: name)?.status, status, name)
                seen += 1
            }
        }
        XCTAssertEqual(seen, BroadcastReason.allCases.count)
    }

    func testSharedReasonsMapBothWays() {
        XCTAssertEqual(BroadcastReason.badPath.apnsReason, .badPath)
        XCTAssertEqual(BroadcastReason.expiredProviderToken.apnsReason, .expiredProviderToken)
        XCTAssertEqual(BroadcastReason.channelNotRegistered.apnsReason, .channelNotRegistered)
        for reason in BroadcastReason.allCases {
            XCTAssertEqual(reason.apnsReason.status, reason.status, "\(reason)")
        }
        XCTAssertEqual(BroadcastReason(Reason.invalidProviderToken), .invalidProviderToken)
        XCTAssertNil(BroadcastReason(Reason.badDeviceToken))
    }
}
