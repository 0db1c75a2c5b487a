import APNsCore
import Broadcast
import JSONInput

/// The body of `POST /v1/channels`: a channel made on a test's behalf, as a create request
/// would make it (docs/broadcast.md §4): `{"bundleId": "com.example.app", "environment":
/// "sandbox", "messageStoragePolicy": 1}`. `environment` defaults to sandbox and the policy to 1
/// (Most Recent Message Stored); other keys are refused like in every other body.
struct ChannelBody: Decodable, Equatable {
    var bundleID: String
    var environment: APNsEnvironment
    var policy: MessageStoragePolicy

    /// The body's shape, for messages.
    static let form =
        #"a JSON object like {"bundleId": "com.example.app", "environment": "sandbox", "messageStoragePolicy": 1}"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case bundleID = "bundleId"
        case environment
        case policy = "messageStoragePolicy"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bundleID = try container.decode(String.self, forKey: .bundleID)
        environment = try container.decodeIfPresent(APNsEnvironment.self, forKey: .environment) ?? .sandbox
        policy = try container.decodeIfPresent(MessageStoragePolicy.self, forKey: .policy) ?? .mostRecentMessageStored
    }
}
