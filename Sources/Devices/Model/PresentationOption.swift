/// One of `UNNotificationPresentationOptions` (docs/device-model.md §3.1): what the app's
/// `userNotificationCenter(_:willPresent:withCompletionHandler:)` passes back for a notification
/// that arrives while it is in the foreground. `.alert` is deprecated and not offered.
public enum PresentationOption: String, Sendable, Hashable, CaseIterable, Codable {
    case banner, list, sound, badge
}
