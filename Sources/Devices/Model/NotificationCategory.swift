import JSONInput

/// A registered `UNNotificationCategory` (docs/device-model.md §3.4, §4.3): a push whose
/// `aps.category` names it offers its actions.
public struct NotificationCategory: Sendable, Hashable, Codable {
    /// The category identifier, matched exactly against `aps.category`.
    public var identifier: String
    /// The actions, in the order the system shows them. Identifiers are unique within the category.
    public var actions: [NotificationAction]
    /// `UNNotificationCategoryOptions.customDismissAction`: a dismissal reaches the app as a
    /// response with `UNNotificationDismissActionIdentifier`.
    public var customDismissAction: Bool

    enum CodingKeys: String, CodingKey, CaseIterable {
        case identifier, actions, customDismissAction
    }

    public init(identifier: String, actions: [NotificationAction] = [], customDismissAction: Bool = false) {
        self.identifier = identifier
        self.actions = actions
        self.customDismissAction = customDismissAction
    }

    /// Reads the JSON object: `identifier` required and not empty, `actions` (default `[]`) and
    /// `customDismissAction` (default `false`) optional.
    /// - Throws: an error at `actions[N].identifier` when an action identifier repeats an earlier one.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try container.decode(String.self, forKey: .identifier)
        if identifier.isEmpty {
            throw InputErrorAt.key(CodingKeys.identifier, in: decoder, "must not be empty")
        }
        actions = try container.decodeIfPresent([NotificationAction].self, forKey: .actions) ?? []
        customDismissAction = try container.decodeIfPresent(Bool.self, forKey: .customDismissAction) ?? false
        if let repeated = InputErrorAt.firstRepeat(actions.map(\.identifier)) {
            throw InputErrorAt.path(
                decoder.codingPath, "actions[\(repeated.index)].identifier",
                "duplicate action identifier \(InputError.quoted(repeated.value)) (also actions[\(repeated.first)])")
        }
    }

    /// The action named `identifier`, if the category has it.
    public func action(_ identifier: String) -> NotificationAction? {
        actions.first { $0.identifier == identifier }
    }
}
