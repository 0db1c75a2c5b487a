import JSONInput

/// A `UNNotificationAction` of a registered category (docs/device-model.md §3.4, §4.2).
public struct NotificationAction: Sendable, Hashable, Codable {
    /// `UNNotificationActionOptions`.
    public enum Option: String, Sendable, Hashable, CaseIterable, Codable {
        /// Picking the action brings the app to the foreground.
        case foreground
        /// Shown in red; no effect on what happens.
        case destructive
        /// Runs only on an unlocked device (MockAPNs has no lock state: the action runs).
        case authenticationRequired
    }

    /// The identifier the app gets as `UNNotificationResponse.actionIdentifier`.
    public var identifier: String
    /// The button title.
    public var title: String
    /// The action's options; none by default.
    public var options: [Option]
    /// A `UNTextInputNotificationAction`: the response carries the text the user typed.
    public var textInput: Bool

    enum CodingKeys: String, CodingKey, CaseIterable {
        case identifier, title, options, textInput
    }

    public init(identifier: String, title: String, options: [Option] = [], textInput: Bool = false) {
        self.identifier = identifier
        self.title = title
        self.options = options
        self.textInput = textInput
    }

    /// Reads the JSON object: `identifier` and `title` are required, `options` (default `[]`) and
    /// `textInput` (default `false`) optional. An empty identifier is refused, and so is an option
    /// given twice (at `options[N]`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        identifier = try container.decode(String.self, forKey: .identifier)
        if identifier.isEmpty {
            throw InputErrorAt.key(CodingKeys.identifier, in: decoder, "must not be empty")
        }
        title = try container.decode(String.self, forKey: .title)
        options = try container.decodeIfPresent([Option].self, forKey: .options) ?? []
        if let repeated = InputErrorAt.firstRepeat(options.map(\.rawValue)) {
            throw InputErrorAt.path(
                decoder.codingPath, "options[\(repeated.index)]",
                "duplicate option \(InputError.quoted(repeated.value)) (also options[\(repeated.first)])")
        }
        textInput = try container.decodeIfPresent(Bool.self, forKey: .textInput) ?? false
    }

    /// Whether the action has `option`.
    public func has(_ option: Option) -> Bool { options.contains(option) }
}
