import APNsCore
import Devices
import JSONInput
import XCTest

/// The device's JSON and its refusals (docs/device-model.md §1).
final class VirtualDeviceTests: XCTestCase {
    static let token = String(repeating: "ab", count: 32)

    func decode(_ json: String) throws(InputError) -> VirtualDevice {
        try StrictJSONDecoder().decode(VirtualDevice.self, from: Array(json.utf8))
    }

    func testDecodesEveryFieldByItsWireName() throws {
        let device = try decode(
            """
            {"token": "\(Self.token.uppercased())", "topic": "com.example.app", "environment": "production",
             "connectivity": "lowPower", "appState": "forceQuit",
             "settings": {"authorized": true, "alert": false, "badge": true, "sound": false},
             "capabilities": {"remoteNotificationBackgroundMode": true, "serviceExtension": true},
             "categories": [{"identifier": "MEETING", "customDismissAction": true,
                             "actions": [{"identifier": "ACCEPT", "title": "Accept", "options": ["foreground", "authenticationRequired"]},
                                         {"identifier": "REPLY", "title": "Reply", "textInput": true}]}],
             "foregroundPresentation": ["banner", "sound"], "installed": false}
            """)
        let expected = VirtualDevice(
            token: Self.token, topic: "com.example.app", environment: .production, connectivity: .lowPower,
            appState: .forceQuit,
            settings: NotificationSettings(authorized: true, alert: false, badge: true, sound: false),
            capabilities: DeviceCapabilities(remoteNotificationBackgroundMode: true, serviceExtension: true),
            categories: [
                NotificationCategory(
                    identifier: "MEETING",
                    actions: [
                        NotificationAction(
                            identifier: "ACCEPT", title: "Accept", options: [.foreground, .authenticationRequired]),
                        NotificationAction(identifier: "REPLY", title: "Reply", textInput: true),
                    ], customDismissAction: true)
            ], foregroundPresentation: [.banner, .sound], installed: false)
        XCTAssertEqual(device, expected)
        XCTAssertEqual(device.category("MEETING")?.action("REPLY")?.textInput, true)
    }

    func testDefaults() throws {
        let device = try decode(#"{"token": "\#(Self.token)", "topic": "com.example.app", "environment": "sandbox"}"#)
        XCTAssertEqual(device, VirtualDevice(token: Self.token, topic: "com.example.app"))
        XCTAssertEqual(device.connectivity, .online)
        XCTAssertEqual(device.appState, .background)
        XCTAssertEqual(device.settings, NotificationSettings(authorized: true, alert: true, badge: true, sound: true))
        XCTAssertEqual(
            device.capabilities, DeviceCapabilities(remoteNotificationBackgroundMode: false, serviceExtension: false))
        XCTAssertEqual(device.categories, [])
        XCTAssertEqual(device.foregroundPresentation, [])
        XCTAssertTrue(device.installed)
    }

    struct Refusal {
        var name: String
        /// Members after the required ones.
        var members: String
        var path: String
        var message: String
        var line: UInt

        init(_ name: String, _ members: String, _ path: String, _ message: String, line: UInt = #line) {
            (self.name, self.members, self.path, self.message, self.line) = (name, members, path, message, line)
        }
    }

    static let refusals: [Refusal] = [
        Refusal(
            "unknown app state", #""appState": "forground""#, "appState",
            #"(did you mean "foreground"?)"#),
        Refusal("unknown connectivity", #""connectivity": "lowpowr""#, "connectivity", #"(did you mean "lowPower"?)"#),
        Refusal("unknown key", #""apState": "background""#, "apState", #"did you mean "appState"?"#),
        Refusal("unknown settings key", #""settings": {"sounds": true}"#, "settings.sounds", #"did you mean "sound"?"#),
        Refusal(
            "duplicate category", #""categories": [{"identifier": "A"}, {"identifier": "B"}, {"identifier": "A"}]"#,
            "categories[2].identifier", #"duplicate category identifier "A" (also categories[0])"#),
        Refusal(
            "duplicate action",
            #""categories": [{"identifier": "A"}, {"identifier": "B", "actions": [{"identifier": "X", "title": "x"}, {"identifier": "X", "title": "y"}]}]"#,
            "categories[1].actions[1].identifier", #"duplicate action identifier "X" (also actions[0])"#),
        Refusal(
            "unknown action option",
            #""categories": [{"identifier": "A", "actions": [{"identifier": "X", "title": "x", "options": ["foregrund"]}]}]"#,
            "categories[0].actions[0].options[0]", #"(did you mean "foreground"?)"#),
        Refusal(
            "duplicate action option",
            #""categories": [{"identifier": "A", "actions": [{"identifier": "X", "title": "x", "options": ["foreground", "destructive", "foreground"]}]}]"#,
            "categories[0].actions[0].options[2]", #"duplicate option "foreground" (also options[0])"#),
        Refusal(
            "duplicate presentation option", #""foregroundPresentation": ["banner", "sound", "banner"]"#,
            "foregroundPresentation[2]", #"duplicate presentation option "banner" (also foregroundPresentation[0])"#),
        Refusal(
            "empty category identifier", #""categories": [{"identifier": ""}]"#, "categories[0].identifier",
            "must not be empty"),
        Refusal(
            "unknown presentation", #""foregroundPresentation": ["alert"]"#, "foregroundPresentation[0]",
            #"expected one of "banner""#),
    ]

    func testRefusalsNameTheField() {
        let base = #""token": "\#(Self.token)", "topic": "com.example.app", "environment": "sandbox""#
        for row in Self.refusals {
            XCTAssertThrowsError(try decode("{\(base), \(row.members)}"), row.name, line: row.line) { error in
                let error = error as? InputError
                XCTAssertEqual(error?.path, row.path, row.name, line: row.line)
                XCTAssertTrue(
                    error?.message.contains(row.message) ?? false, "\(row.name): \(String(describing: error))",
                    line: row.line)
            }
        }
        for (json, path) in [
            (#"{"token": "xyz", "topic": "t", "environment": "sandbox"}"#, "token"),
            (#"{"token": "\#(Self.token)", "topic": "", "environment": "sandbox"}"#, "topic"),
            (#"{"token": "\#(Self.token)", "topic": "t", "environment": "prod"}"#, "environment"),
        ] {
            XCTAssertThrowsError(try decode(json), path) { XCTAssertEqual(($0 as? InputError)?.path, path) }
        }
    }
}
