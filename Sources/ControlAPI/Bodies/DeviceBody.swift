import APNsCore
import JSONInput
import JSONSupport

/// The body of `PUT /v1/devices/{token}`: a JSON object with `environment` (`sandbox` or
/// `production`, any case, required), `topic` (a non-empty string or null), `unregisteredAt`
/// (integer milliseconds since the epoch or an ISO 8601 string, `ISO8601Timestamp`'s range, or
/// null), `expired` (true or false, default false) and optionally `token` (must equal the
/// path's, any case). Other keys are refused.
struct DeviceBody: Decodable, Equatable {
    var token: String?
    var topic: String?
    var environment: APNsEnvironment
    /// Milliseconds since the Unix epoch.
    var unregisteredAt: Int64?
    var expired: Bool

    /// The body's shape, for messages.
    static let form = #"a JSON object like {"environment":"sandbox","topic":"com.example.app"}"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case token, topic, environment, unregisteredAt, expired
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func refuse(_ key: CodingKeys, _ message: String) -> InputError {
            InputError(at: container.codingPath + [key], message)
        }
        token = try container.decodeIfPresent(String.self, forKey: .token)
        switch try container.decodeIfPresent(JSONNode.self, forKey: .environment) {
        case .string(let text)? where APNsEnvironment(rawValue: text.lowercased()) != nil:
            environment = APNsEnvironment(rawValue: text.lowercased())!
        case let other:
            let near = other.flatMap { if case .string(let text) = $0 { text } else { nil } }
            throw refuse(
                .environment,
                (other == nil ? "missing (required); expected " : "expected ") + #""sandbox" or "production""#
                    + (other.map { ", got \($0.rendered)" } ?? "")
                    + (near.map { ClosestMatch.hint($0, among: ["sandbox", "production"]) } ?? ""))
        }
        switch try container.decodeIfPresent(JSONNode.self, forKey: .topic) {
        case nil: topic = nil
        case .string(let text)? where !text.isEmpty: topic = text
        case let other?: throw refuse(.topic, "expected a non-empty string or null, got \(other.rendered)")
        }
        switch try container.decodeIfPresent(JSONNode.self, forKey: .unregisteredAt) {
        case nil: unregisteredAt = nil
        case .int(let ms)? where ISO8601Timestamp(epochMilliseconds: ms) != nil: unregisteredAt = ms
        case .string(let text)? where ISO8601Timestamp(text) != nil:
            unregisteredAt = ISO8601Timestamp(text)?.epochMilliseconds
        case let other?:
            throw refuse(
                .unregisteredAt,
                "expected a non-negative integer (milliseconds since the epoch) or an ISO 8601 string like "
                    + "2026-11-30T08:49:03.123Z, up to the year 9999, got \(other.rendered)")
        }
        expired = try container.decodeIfPresent(Bool.self, forKey: .expired) ?? false
    }

    /// The registration of `token` (the path's, validated and lowercased) this body describes;
    /// `expired: true` without `unregisteredAt` records `nowMilliseconds` as the moment of marking.
    /// - Throws: a 400 when the body's `token` differs from the path's.
    func registration(token: String, nowMilliseconds: Int64) throws(ControlError) -> DeviceRegistration {
        if let sent = self.token, sent.lowercased() != token {
            throw .badRequest("token: must equal the token in the path (\(token)), got \(InputError.quoted(sent))")
        }
        return DeviceRegistration(
            token: token, topic: topic, environment: environment,
            unregisteredAt: unregisteredAt ?? (expired ? nowMilliseconds : nil), expired: expired)
    }
}
