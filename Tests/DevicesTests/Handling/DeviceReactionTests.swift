import APNsCore
import Devices
import XCTest

/// What a device does with a delivered push (docs/device-model.md §3): one table per rule.
final class DeviceReactionTests: XCTestCase {
    typealias F = LifecycleFixture

    struct Row {
        var name: String
        var change: @Sendable (inout VirtualDevice) -> Void
        var pushType: PushType
        var body: String
        var expected: String
        var line: UInt
    }

    static func row(
        _ name: String, type: PushType = .alert, _ body: String, _ expected: String, line: UInt = #line,
        _ change: @escaping @Sendable (inout VirtualDevice) -> Void = { _ in }
    ) -> Row { Row(name: name, change: change, pushType: type, body: body, expected: expected, line: line) }

    static func reaction(_ row: Row) -> DeviceReaction {
        DeviceReaction(
            push: DevicePush(id: 1, pushType: row.pushType, body: Array(row.body.utf8)), device: F.device(row.change))
    }

    static func check(_ rows: [Row], _ render: (DeviceReaction) -> String) {
        for row in rows { XCTAssertEqual(render(reaction(row)), row.expected, row.name, line: row.line) }
    }

    static let full = #"{"aps":{"alert":"hi","sound":"default","badge":3}}"#
    static let silent = #"{"aps":{"content-available":1}}"#

    // MARK: §3.1 presentation

    static func presentation(_ reaction: DeviceReaction) -> String {
        let p = reaction.presentation
        let words = [
            p.banner ? "banner" : nil, p.list ? "list" : nil, p.sound ? "sound" : nil, p.badge.map { "badge=\($0)" },
        ]
        let text = words.compactMap { $0 }.joined(separator: " ")
        return text.isEmpty ? "nothing" : text
    }

    static let presentationRows: [Row] = [
        row("background app, everything on", full, "banner list sound badge=3"),
        row("alerts off", full, "sound badge=3") { $0.settings.alert = false },
        row("sounds off", full, "banner list badge=3") { $0.settings.sound = false },
        row("badges off", full, "banner list sound") { $0.settings.badge = false },
        row("not running: the system shows it", #"{"aps":{"alert":"hi"}}"#, "banner list") {
            $0.appState = .notRunning
        },
        row("suspended", #"{"aps":{"alert":"hi"}}"#, "banner list") { $0.appState = .suspended },
        row("foreground, willPresent gives nothing", full, "nothing") { $0.appState = .foreground },
        row("foreground, willPresent banner and sound", full, "banner sound") {
            $0.appState = .foreground
            $0.foregroundPresentation = [.banner, .sound]
        },
        row("foreground, every option, alerts off", full, "sound badge=3") {
            $0.appState = .foreground
            $0.foregroundPresentation = PresentationOption.allCases
            $0.settings.alert = false
        },
        row("silent push", type: .background, silent, "nothing"),
        row("badge 0 removes the badge", #"{"aps":{"badge":0}}"#, "badge=0"),
        row("alert without text", #"{"aps":{"alert":{"launch-image":"a.png"}}}"#, "nothing"),
        row("alert with a title", #"{"aps":{"alert":{"title":"T"}}}"#, "banner list"),
        row("not authorized", type: .background, #"{"aps":{"content-available":1,"badge":2}}"#, "nothing") {
            $0.settings.authorized = false
        },
        row("voip is never displayed", type: .voip, full, "nothing"),
    ]

    func testPresentationTable() { Self.check(Self.presentationRows, Self.presentation) }

    // MARK: §3.2 callback, §3.5 wake, §3.6 other types

    static func callback(_ reaction: DeviceReaction) -> String {
        let names = reaction.callbacks.map { callback -> String in
            switch callback {
            case .willPresent: return "willPresent"
            case .didReceiveRemoteNotification(let seconds): return "fetch(\(seconds))"
            case .pushKit: return "pushKit"
            }
        }
        return "[\(names.joined(separator: " "))] \(reaction.wake.rawValue) -> \(reaction.appStateAfter.rawValue)"
            + (reaction.lints.isEmpty ? "" : " lints=\(reaction.lints.count)")
    }

    static let alertAndFetch = #"{"aps":{"alert":"hi","content-available":1}}"#

    static let callbackRows: [Row] = [
        row("foreground alert", #"{"aps":{"alert":"hi"}}"#, "[willPresent] none -> foreground") {
            $0.appState = .foreground
        },
        row("foreground silent with the mode", type: .background, silent, "[fetch(30)] none -> foreground") {
            $0.appState = .foreground
            $0.capabilities.remoteNotificationBackgroundMode = true
        },
        row("foreground alert with content-available", alertAndFetch, "[willPresent fetch(30)] none -> foreground") {
            $0.appState = .foreground
            $0.capabilities.remoteNotificationBackgroundMode = true
        },
        row("background alert: no code until tapped", #"{"aps":{"alert":"hi"}}"#, "[] none -> background"),
        row("not running alert: no code until tapped", #"{"aps":{"alert":"hi"}}"#, "[] none -> notRunning") {
            $0.appState = .notRunning
        },
        row("background silent with the mode", type: .background, silent, "[fetch(30)] none -> background") {
            $0.capabilities.remoteNotificationBackgroundMode = true
        },
        row("suspended silent: resumed", type: .background, silent, "[fetch(30)] resumed -> background") {
            $0.appState = .suspended
            $0.capabilities.remoteNotificationBackgroundMode = true
        },
        row("not running silent: launched", type: .background, silent, "[fetch(30)] launchedInBackground -> background")
        {
            $0.appState = .notRunning
            $0.capabilities.remoteNotificationBackgroundMode = true
        },
        row(
            "not running alert with content-available: launched", alertAndFetch,
            "[fetch(30)] launchedInBackground -> background"
        ) {
            $0.appState = .notRunning
            $0.capabilities.remoteNotificationBackgroundMode = true
        },
        row("silent without the mode: a lint says why", type: .background, silent, "[] none -> notRunning lints=1") {
            $0.appState = .notRunning
        },
        row("force-quit: no wake", type: .background, silent, "[] none -> forceQuit") {
            $0.appState = .forceQuit
            $0.capabilities.remoteNotificationBackgroundMode = true
        },
        row("voip", type: .voip, #"{"aps":{}}"#, "[pushKit] launchedInBackground -> background") {
            $0.appState = .notRunning
        },
        row(
            "liveactivity: not modelled", type: .liveactivity, #"{"aps":{"event":"update"}}"#,
            "[] none -> background lints=1"),
    ]

    func testCallbackTable() { Self.check(Self.callbackRows, Self.callback) }

    // MARK: §3.3 service extension

    static func serviceExtension(_ reaction: DeviceReaction) -> String {
        switch reaction.serviceExtension {
        case .notRequested: return "notRequested"
        case .ran(let seconds): return "ran(\(seconds))"
        case .skipped(let reason): return "skipped(\(reason.rawValue))"
        }
    }

    static let mutable = #"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1}}"#

    static let serviceExtensionRows: [Row] = [
        row("mutable-content with an extension", mutable, "ran(30)") { $0.capabilities.serviceExtension = true },
        row("no mutable-content", #"{"aps":{"alert":"hi"}}"#, "notRequested") {
            $0.capabilities.serviceExtension = true
        },
        row("sound and badge only", #"{"aps":{"sound":"a","badge":1,"mutable-content":1}}"#, "skipped(noAlertText)") {
            $0.capabilities.serviceExtension = true
        },
        row("alerts off", mutable, "skipped(alertsDisabled)") {
            $0.capabilities.serviceExtension = true
            $0.settings.alert = false
        },
        row("no extension", mutable, "skipped(noExtension)"),
        row("mutable-content 2", #"{"aps":{"alert":"hi","mutable-content":2}}"#, "notRequested") {
            $0.capabilities.serviceExtension = true
        },
    ]

    func testServiceExtensionTable() { Self.check(Self.serviceExtensionRows, Self.serviceExtension) }

    // MARK: §3.4 actions

    static func actions(_ reaction: DeviceReaction) -> String {
        reaction.actions.map(\.identifier).joined(separator: ",") + " lints=\(reaction.lints.count)"
    }

    static let meeting = NotificationCategory(
        identifier: "MEETING",
        actions: [
            NotificationAction(identifier: "ACCEPT", title: "Accept", options: [.foreground]),
            NotificationAction(identifier: "DECLINE", title: "Decline", options: [.destructive]),
        ])

    static let actionRows: [Row] = [
        row("registered category", #"{"aps":{"alert":"hi","category":"MEETING"}}"#, "ACCEPT,DECLINE lints=0") {
            $0.categories = [meeting]
        },
        row("unknown category: none and a lint", #"{"aps":{"alert":"hi","category":"MEETNG"}}"#, " lints=1") {
            $0.categories = [meeting]
        },
        row("no category", #"{"aps":{"alert":"hi"}}"#, " lints=0") { $0.categories = [meeting] },
        row("not shown: alerts off", #"{"aps":{"alert":"hi","category":"MEETING"}}"#, " lints=0") {
            $0.categories = [meeting]
            $0.settings.alert = false
        },
        row("not shown: foreground without options", #"{"aps":{"alert":"hi","category":"MEETING"}}"#, " lints=0") {
            $0.categories = [meeting]
            $0.appState = .foreground
        },
    ]

    func testActionsTable() { Self.check(Self.actionRows, Self.actions) }
}
