import JSONInput

extension DeviceLifecycle {
    /// The user taps, picks an action of or dismisses the shown notification `notification` at
    /// `now` (docs/device-model.md §4). The notification leaves Notification Center.
    ///
    /// - tap: `UNNotificationDefaultActionIdentifier`; the app comes to the foreground, launched
    ///   with the `remoteNotification` launch option when it was not running or force-quit (§4.1).
    /// - action: its identifier and, for a text-input action, the text; a `.foreground` action
    ///   brings the app forward as a tap does, another runs it in the background (launched or
    ///   resumed) (§4.2).
    /// - dismiss: `UNNotificationDismissActionIdentifier` handled as a background action when the
    ///   category has `customDismissAction`; else the app hears nothing (§4.3).
    /// - Throws: `InputError` at `notification` when no such notification is shown, at `action`
    ///   when its category has no such action (with a "did you mean") or the notification has no
    ///   registered category, at `text` when text is given to an action without text input.
    ///   Nothing changes then.
    public mutating func interact(_ interaction: UserInteraction, with notification: UInt64, at now: Double)
        throws(InputError) -> InteractionOutcome
    {
        guard let index = shown.firstIndex(where: { $0.push.id == notification }) else {
            throw InputError(path: "notification", message: "no notification \(notification) is shown on the device")
        }
        let push = shown[index].push
        let category = push.payload.category.flatMap(device.category)
        let identifier: String?
        var text: String?
        let foreground: Bool
        switch interaction {
        case .tap:
            identifier = UserInteraction.defaultActionIdentifier
            foreground = true
        case .action(let name, let typed):
            guard let category else {
                throw InputError(
                    path: "action", message: "the notification has no registered category, so no actions")
            }
            guard let action = category.action(name) else {
                let names = category.actions.map(\.identifier)
                throw InputError(
                    path: "action",
                    message:
                        "category \(InputError.quoted(category.identifier)) has no action \(InputError.quoted(name))"
                        + ClosestMatch.hint(name, among: names) + "; its actions: " + names.joined(separator: ", "))
            }
            if typed != nil, !action.textInput {
                throw InputError(path: "text", message: "action \(InputError.quoted(name)) takes no text input")
            }
            identifier = name
            text = action.textInput ? (typed ?? "") : nil
            foreground = action.has(.foreground)
        case .dismiss:
            identifier = category?.customDismissAction == true ? UserInteraction.dismissActionIdentifier : nil
            foreground = false
        }
        var events = advance(to: now)
        // What fell due may have replaced it by collapse ID meanwhile; the user acted on it all the same.
        if let current = shown.firstIndex(where: { $0.push.id == notification }) { _ = removeShown(at: current) }
        let before = device.appState
        var launch = InteractionOutcome.Launch.none
        var launchPayload: [UInt8]?
        var after = before
        if identifier != nil {
            switch (foreground, before) {
            case (true, .notRunning), (true, .forceQuit):
                (launch, after, launchPayload) = (.launchedWithRemoteNotification, .foreground, push.body)
            case (true, .background), (true, .suspended):
                (launch, after) = (.broughtToForeground, .foreground)
            case (false, .notRunning), (false, .forceQuit):
                (launch, after) = (.launchedInBackground, .background)
            case (false, .suspended):
                (launch, after) = (.resumedInBackground, .background)
            default:
                break
            }
        }
        events += moveApp(to: after, at: now)
        stampMonotonic(&events)
        return InteractionOutcome(
            response: identifier.map {
                InteractionOutcome.Response(notification: notification, actionIdentifier: $0, userText: text)
            },
            launch: launch, launchOptionsRemoteNotification: launchPayload, appStateBefore: before,
            appStateAfter: after, at: max(now, latestStamp), events: events)
    }
}
