/// What the user does with a shown notification (docs/device-model.md §4).
public enum UserInteraction: Sendable, Equatable {
    /// Taps the notification: the default action.
    case tap
    /// Picks the category action `identifier`; `text` is what the user typed into a text-input
    /// action (nil for other actions).
    case action(String, text: String?)
    /// Dismisses the notification.
    case dismiss

    /// `UNNotificationDefaultActionIdentifier`.
    public static let defaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
    /// `UNNotificationDismissActionIdentifier`.
    public static let dismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"
}
