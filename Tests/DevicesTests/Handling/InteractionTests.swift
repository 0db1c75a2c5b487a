import APNsCore
import Devices
import JSONInput
import XCTest

/// User interaction with a shown notification (docs/device-model.md §4).
final class InteractionTests: XCTestCase {
    typealias F = LifecycleFixture

    static let categories = [
        NotificationCategory(
            identifier: "MEETING",
            actions: [
                NotificationAction(identifier: "ACCEPT", title: "Accept", options: [.foreground]),
                NotificationAction(identifier: "DECLINE", title: "Decline", options: [.destructive]),
                NotificationAction(identifier: "REPLY", title: "Reply", textInput: true),
            ], customDismissAction: true),
        NotificationCategory(identifier: "PLAIN", actions: [NotificationAction(identifier: "OK", title: "OK")]),
    ]

    static func body(_ category: String) -> String { #"{"aps":{"alert":"hi","category":"\#(category)"}}"# }

    /// A lifecycle in `state` with notification 1 of `category` shown.
    static func lifecycle(_ state: AppState, category: String = "MEETING") -> DeviceLifecycle {
        var lifecycle = DeviceLifecycle(
            device: F.device {
                $0.categories = categories
                $0.appState = state
                $0.foregroundPresentation = [.banner, .list]
            })
        _ = lifecycle.receive(F.alert(1, body: body(category)), at: F.t0)
        return lifecycle
    }

    struct Row {
        var name: String
        var state: AppState
        var category: String
        var interaction: UserInteraction
        var expected: String
        var line: UInt

        init(
            _ name: String, _ state: AppState, _ interaction: UserInteraction, category: String = "MEETING",
            _ expected: String,
            line: UInt = #line
        ) {
            (self.name, self.state, self.category, self.interaction, self.expected, self.line) =
                (name, state, category, interaction, expected, line)
        }
    }

    static let rows: [Row] = [
        Row("tap, background", .background, .tap, "default | broughtToForeground | background->foreground"),
        Row("tap, suspended", .suspended, .tap, "default | broughtToForeground | suspended->foreground"),
        Row("tap, not running", .notRunning, .tap, "default | launchedWithRemoteNotification | notRunning->foreground"),
        Row("tap, force-quit", .forceQuit, .tap, "default | launchedWithRemoteNotification | forceQuit->foreground"),
        Row("tap, foreground", .foreground, .tap, "default | none | foreground->foreground"),
        Row(
            "foreground action, suspended", .suspended, .action("ACCEPT", text: nil),
            "ACCEPT | broughtToForeground | suspended->foreground"),
        Row(
            "foreground action, not running", .notRunning, .action("ACCEPT", text: nil),
            "ACCEPT | launchedWithRemoteNotification | notRunning->foreground"),
        Row(
            "background action, not running", .notRunning, .action("DECLINE", text: nil),
            "DECLINE | launchedInBackground | notRunning->background"),
        Row(
            "background action, suspended", .suspended, .action("DECLINE", text: nil),
            "DECLINE | resumedInBackground | suspended->background"),
        Row(
            "background action, foreground", .foreground, .action("DECLINE", text: nil),
            "DECLINE | none | foreground->foreground"),
        Row(
            "text input", .background, .action("REPLY", text: "on my way"),
            "REPLY text=on my way | none | background->background"),
        Row(
            "text input left empty", .background, .action("REPLY", text: nil),
            "REPLY text= | none | background->background"),
        Row("custom dismiss", .notRunning, .dismiss, "dismiss | launchedInBackground | notRunning->background"),
        Row(
            "dismiss without custom dismiss", .background, .dismiss, category: "PLAIN",
            "no response | none | background->background"),
    ]

    static func render(_ outcome: InteractionOutcome) -> String {
        var response = "no response"
        if let r = outcome.response {
            switch r.actionIdentifier {
            case UserInteraction.defaultActionIdentifier: response = "default"
            case UserInteraction.dismissActionIdentifier: response = "dismiss"
            default: response = r.actionIdentifier
            }
            if let text = r.userText { response += " text=\(text)" }
        }
        return
            "\(response) | \(outcome.launch.rawValue) | \(outcome.appStateBefore.rawValue)->\(outcome.appStateAfter.rawValue)"
    }

    func testInteractionTable() throws {
        for row in Self.rows {
            var lifecycle = Self.lifecycle(row.state, category: row.category)
            XCTAssertEqual(lifecycle.shown.map(\.push.id), [1], row.name, line: row.line)
            let outcome = try lifecycle.interact(row.interaction, with: 1, at: F.t0 + 5)
            XCTAssertEqual(Self.render(outcome), row.expected, row.name, line: row.line)
            XCTAssertEqual(outcome.response?.notification ?? 1, 1, row.name, line: row.line)
            XCTAssertEqual(lifecycle.device.appState, outcome.appStateAfter, row.name, line: row.line)
            XCTAssertEqual(lifecycle.shown.count, 0, "the notification leaves Notification Center", line: row.line)
            XCTAssertEqual(
                outcome.launchOptionsRemoteNotification,
                outcome.launch == .launchedWithRemoteNotification ? Array(Self.body(row.category).utf8) : nil, row.name,
                line: row.line)
        }
    }

    func testRefusalsNameTheField() {
        let rows: [(String, String, UInt64, UserInteraction, String, String, line: UInt)] = [
            ("not shown", "MEETING", 2, .tap, "notification", "no notification 2", #line),
            (
                "unknown action", "MEETING", 1, .action("ACCEPTT", text: nil), "action", #"(did you mean "ACCEPT"?)"#,
                #line
            ),
            ("text for a button", "MEETING", 1, .action("DECLINE", text: "x"), "text", "takes no text input", #line),
            (
                "another category's action", "PLAIN", 1, .action("ACCEPT", text: nil), "action",
                #"has no action "ACCEPT""#, #line
            ),
            (
                "no registered category", "NONE", 1, .action("ACCEPT", text: nil), "action", "no registered category",
                #line
            ),
        ]
        for (name, category, id, interaction, path, message, line) in rows {
            var lifecycle = Self.lifecycle(.background, category: category)
            XCTAssertThrowsError(try lifecycle.interact(interaction, with: id, at: F.t0 + 5), name, line: line) {
                error in
                let error = error as? InputError
                XCTAssertEqual(error?.path, path, name, line: line)
                XCTAssertTrue(
                    error?.message.contains(message) ?? false, "\(name): \(String(describing: error))", line: line)
            }
            XCTAssertEqual(lifecycle.shown.map(\.push.id), [1], "\(name): nothing changed", line: line)
            XCTAssertEqual(lifecycle.device.appState, .background, name, line: line)
        }
    }

    /// A foreground tap delivers a budget-held background push at once (§2.6 through §4.1).
    func testTapReleasesABudgetHeldPush() throws {
        var lifecycle = DeviceLifecycle(
            device: F.device { $0.categories = Self.categories }, options: DeviceModelOptions(backgroundBudget: 0))
        _ = lifecycle.receive(F.alert(1, body: Self.body("MEETING")), at: F.t0)
        _ = lifecycle.receive(F.background(2), at: F.t0 + 1)
        XCTAssertEqual(lifecycle.budgetHeld?.push.id, 2)
        let outcome = try lifecycle.interact(.tap, with: 1, at: F.t0 + 5)
        XCTAssertEqual(outcome.events.map(F.render), ["2 delivered-from-storage @5"])
    }
}
