import APNsCore

/// What a virtual device does with a push delivered to it (docs/device-model.md §3), computed from
/// the push and the device as it is at delivery: what the user sees, which app callback runs,
/// whether the service extension runs, which actions are offered, how the app wakes.
public struct DeviceReaction: Sendable, Equatable {
    /// What the user sees and hears (docs/device-model.md §3.1).
    public struct Presentation: Sendable, Equatable {
        /// A banner is shown.
        public var banner: Bool
        /// The notification goes to Notification Center's list.
        public var list: Bool
        /// The sound plays.
        public var sound: Bool
        /// The badge the icon shows after the push (0: none); nil when the push leaves it as it was.
        public var badge: Int?

        public init(banner: Bool = false, list: Bool = false, sound: Bool = false, badge: Int? = nil) {
            self.banner = banner
            self.list = list
            self.sound = sound
            self.badge = badge
        }

        /// Nothing shown, heard or changed: a silent push.
        public static let nothing = Presentation()

        /// Shown as a banner or in the list: the user can tap it.
        public var isShown: Bool { banner || list }
    }

    /// An app method the system calls (docs/device-model.md §3.2).
    public enum Callback: Sendable, Equatable {
        /// `userNotificationCenter(_:willPresent:withCompletionHandler:)`.
        case willPresent
        /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`, with
        /// `budgetSeconds` (30) to call the handler before the app is terminated.
        case didReceiveRemoteNotification(budgetSeconds: Int)
        /// `pushRegistry(_:didReceiveIncomingPushWith:for:completion:)` (PushKit: voip, complication).
        case pushKit
    }

    /// The notification service extension (docs/device-model.md §3.3).
    public enum ServiceExtension: Sendable, Equatable {
        /// The payload has no `mutable-content: 1`.
        case notRequested
        /// `didReceive(_:withContentHandler:)` runs, with `budgetSeconds` (30) before
        /// `serviceExtensionTimeWillExpire()`.
        case ran(budgetSeconds: Int)
        /// `mutable-content: 1`, but the extension is not employed.
        case skipped(SkipReason)

        /// Why a requested extension did not run.
        public enum SkipReason: String, Sendable, Equatable {
            /// The alert has no title, subtitle or body (a sound or badge only, or no alert).
            case noAlertText
            /// The user turned alerts off (or notifications are not authorized).
            case alertsDisabled
            /// The app has no service extension.
            case noExtension
        }
    }

    /// How the push changes whether the app runs (docs/device-model.md §3.5).
    public enum Wake: String, Sendable, Equatable {
        /// The app is not started or resumed.
        case none
        /// The app was not running and is launched into the background.
        case launchedInBackground
        /// The app was suspended and is resumed into the background.
        case resumed
    }

    /// What the user sees and hears (§3.1).
    public var presentation: Presentation
    /// The callbacks in the order they run; empty when no app code runs.
    public var callbacks: [Callback]
    /// Whether the service extension ran (§3.3).
    public var serviceExtension: ServiceExtension
    /// The action buttons offered: the actions of the registered category `aps.category` names,
    /// when the notification is shown.
    public var actions: [NotificationAction]
    /// How the app was woken for its callback (§3.5).
    public var wake: Wake
    /// The app's state once the push is handled.
    public var appStateAfter: AppState
    /// Device-side warnings: an `aps.category` no registered category has, a push type whose
    /// device handling is not modelled.
    public var lints: [String]

    public init(
        presentation: Presentation = .nothing, callbacks: [Callback] = [],
        serviceExtension: ServiceExtension = .notRequested,
        actions: [NotificationAction] = [], wake: Wake = .none, appStateAfter: AppState, lints: [String] = []
    ) {
        self.presentation = presentation
        self.callbacks = callbacks
        self.serviceExtension = serviceExtension
        self.actions = actions
        self.wake = wake
        self.appStateAfter = appStateAfter
        self.lints = lints
    }

    /// The fetch handler's budget and the service extension's, in seconds (FETCH, NSE).
    public static let budgetSeconds = 30

    /// What `device` does with `push` delivered now (docs/device-model.md §3, rules 3.1-3.5).
    public init(push: DevicePush, device: VirtualDevice) {
        let state = device.appState
        switch push.pushType {
        case .alert, .background:
            self = Self.notification(push: push, device: device)
        case .voip, .complication:
            // §3.6: PushKit pushes always reach the app and are never displayed.
            let wake = Self.wakeUp(from: state, forceQuitBlocks: false)
            self.init(callbacks: [.pushKit], wake: wake, appStateAfter: wake == .none ? state : .background)
        default:
            self.init(
                appStateAfter: state,
                lints: [
                    "\(push.pushType.rawValue) push: its device-side handling is not modelled (docs/device-model.md §3.6)"
                ])
        }
    }

    /// Rules 3.1-3.5 for alert and background pushes.
    private static func notification(push: DevicePush, device: VirtualDevice) -> DeviceReaction {
        let payload = push.payload, settings = device.settings, state = device.appState
        let authorized = settings.authorized
        let alertsOn = authorized && settings.alert
        // §3.1: in the foreground willPresent's options decide; elsewhere the system shows what the payload has.
        // A linear scan of at most four options: no set is built per delivery (docs/device-model.md §7).
        func allowed(_ option: PresentationOption) -> Bool {
            state != .foreground || device.foregroundPresentation.contains(option)
        }
        var presentation = Presentation.nothing
        if authorized {
            presentation.banner = payload.alertHasText && settings.alert && allowed(.banner)
            presentation.list = payload.alertHasText && settings.alert && allowed(.list)
            presentation.sound = payload.hasSound && settings.sound && allowed(.sound)
            if settings.badge, allowed(.badge) { presentation.badge = payload.badge }
        }
        // §3.2: willPresent for a visible notification in the foreground; the fetch method for
        // content-available with the background mode, unless force-quit.
        var callbacks: [Callback] = []
        if state == .foreground, authorized, payload.isVisible { callbacks.append(.willPresent) }
        var wake = Wake.none
        var after = state
        if payload.contentAvailable, device.capabilities.remoteNotificationBackgroundMode, state != .forceQuit {
            callbacks.append(.didReceiveRemoteNotification(budgetSeconds: budgetSeconds))
            wake = wakeUp(from: state, forceQuitBlocks: true)
            if wake != .none { after = .background }
        }
        // §3.3: the service extension.
        var serviceExtension = ServiceExtension.notRequested
        if payload.mutableContent {
            if !payload.alertHasText {
                serviceExtension = .skipped(.noAlertText)
            } else if !alertsOn {
                serviceExtension = .skipped(.alertsDisabled)
            } else if !device.capabilities.serviceExtension {
                serviceExtension = .skipped(.noExtension)
            } else {
                serviceExtension = .ran(budgetSeconds: budgetSeconds)
            }
        }
        // §3.4: actions of a registered category, when shown.
        var actions: [NotificationAction] = []
        var lints: [String] = []
        // §3.2: iOS wakes no app for content-available without the mode; say why nothing ran.
        if payload.contentAvailable, !device.capabilities.remoteNotificationBackgroundMode {
            lints.append(
                "aps.content-available: the app has no remote-notification background mode "
                    + "(capabilities.remoteNotificationBackgroundMode is false): it is not woken "
                    + "(docs/device-model.md §3.2)")
        }
        if let name = payload.category {
            if let category = device.category(name) {
                if presentation.isShown { actions = category.actions }
            } else {
                lints.append(
                    "aps.category \"\(name)\" is not a registered category of the app: no actions offered "
                        + "(docs/device-model.md §3.4)")
            }
        }
        return DeviceReaction(
            presentation: presentation, callbacks: callbacks, serviceExtension: serviceExtension, actions: actions,
            wake: wake, appStateAfter: after, lints: lints)
    }

    /// §3.5: how an app in `state` is woken to run code in the background.
    static func wakeUp(from state: AppState, forceQuitBlocks: Bool) -> Wake {
        switch state {
        case .notRunning: return .launchedInBackground
        case .forceQuit: return forceQuitBlocks ? .none : .launchedInBackground
        case .suspended: return .resumed
        case .foreground, .background: return .none
        }
    }
}
