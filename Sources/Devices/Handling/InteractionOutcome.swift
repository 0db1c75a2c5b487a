/// What a user interaction leads to (docs/device-model.md §4): the response the app's
/// `userNotificationCenter(_:didReceive:withCompletionHandler:)` gets and how the app's state changes.
public struct InteractionOutcome: Sendable, Equatable {
    /// A `UNNotificationResponse`.
    public struct Response: Sendable, Equatable {
        /// The notification (`DevicePush.id`).
        public var notification: UInt64
        /// `UNNotificationDefaultActionIdentifier`, `UNNotificationDismissActionIdentifier` or
        /// the action's identifier.
        public var actionIdentifier: String
        /// `UNTextInputNotificationResponse.userText`, for a text-input action.
        public var userText: String?
    }

    /// How the app comes to handle the response.
    public enum Launch: String, Sendable, Equatable {
        /// The app was already where the response needs it.
        case none
        /// Launched into the foreground with `UIApplication.LaunchOptionsKey.remoteNotification`
        /// holding the payload (from not running or force-quit).
        case launchedWithRemoteNotification
        /// Brought from the background or suspension into the foreground.
        case broughtToForeground
        /// Launched into the background to handle an action (from not running or force-quit).
        case launchedInBackground
        /// Resumed from suspension into the background to handle an action.
        case resumedInBackground
    }

    /// The response delivered to the app; nil for a dismissal without `customDismissAction`.
    public var response: Response?
    /// How the app came to handle the response.
    public var launch: Launch
    /// The payload under `UIApplication.LaunchOptionsKey.remoteNotification`, for
    /// `launchedWithRemoteNotification`.
    public var launchOptionsRemoteNotification: [UInt8]?
    /// The app's state when the user acted.
    public var appStateBefore: AppState
    /// The app's state once the response is handled.
    public var appStateAfter: AppState
    /// When it happened (seconds since the Unix epoch, server clock).
    public var at: Double
    /// Transitions that fell due on the way (`DeviceLifecycle.advance(to:)`) or that the app's new
    /// state caused (a budget-held background push delivered when the app comes forward).
    public var events: [LifecycleEvent]
}
