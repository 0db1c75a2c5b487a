import Devices
import JSONInput

/// The body of `POST /v1/devices/{token}/interactions` (docs/device-model.md §4): `{"notification":
/// seq of the shown push's record, "type": "tap" | "action" | "dismiss", "action": the category
/// action's identifier (with "action" only), "text": what the user typed (a text-input action
/// only)}`. Other keys are refused.
struct InteractionBody: Decodable, Equatable {
    /// The notification: its delivery record's seq.
    var notification: UInt64
    /// What the user does.
    var interaction: UserInteraction

    /// The body's shape, for messages.
    static let form = #"a JSON object like {"notification": 3, "type": "action", "action": "ACCEPT"}"#

    /// The interaction types.
    enum Kind: String, Decodable, CaseIterable {
        case tap, action, dismiss
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case notification, type, action, text
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        notification = try container.decode(UInt64.self, forKey: .notification)
        let kind = try container.decode(Kind.self, forKey: .type)
        let action = try container.decodeIfPresent(String.self, forKey: .action)
        let text = try container.decodeIfPresent(String.self, forKey: .text)
        switch kind {
        case .action:
            guard let action else {
                throw InputError(
                    at: container.codingPath + [CodingKeys.action], "missing; type action names its identifier")
            }
            interaction = .action(action, text: text)
        case .tap, .dismiss:
            for (key, given) in [(CodingKeys.action, action != nil), (.text, text != nil)] where given {
                throw InputError(at: container.codingPath + [key], "only with type action, not \(kind.rawValue)")
            }
            interaction = kind == .tap ? .tap : .dismiss
        }
    }
}
