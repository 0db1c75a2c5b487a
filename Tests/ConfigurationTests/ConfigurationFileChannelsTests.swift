import APNsCore
import Broadcast
import Devices
import XCTest

@testable import Configuration

/// The configuration file's channels made at start (`broadcast.channels`) and its virtual
/// devices' subscriptions (`devices[N].channels`; docs/broadcast.md §4, §5), each error naming
/// the position.
final class ConfigurationFileChannelsTests: XCTestCase {
    static let token = String(repeating: "ab", count: 32)

    func testChannelsAndSubscriptionsAreRead() throws {
        let configuration = try parseConfiguration(
            #"""
            {"broadcast": {"channels": [
               {"id": "dHN0LXNyY2gtY2hubA==", "bundleId": "com.a"},
               {"id": "Y2hhbm5lbC8rMg==", "bundleId": "com.a", "environment": "production", "messageStoragePolicy": 0}]},
             "devices": [{"token": "\#(Self.token)", "topic": "com.a", "channels": ["dHN0LXNyY2gtY2hubA=="]}]}
            """#)
        XCTAssertEqual(
            configuration.broadcast.channels,
            [
                ConfiguredChannel(id: "dHN0LXNyY2gtY2hubA==", bundleID: "com.a"),
                ConfiguredChannel(
                    id: "Y2hhbm5lbC8rMg==", bundleID: "com.a", environment: .production, storagePolicy: .noMessageStored
                ),
            ])
        XCTAssertEqual(configuration.virtualDevices.map(\.channels), [["dHN0LXNyY2gtY2hubA=="]])
        XCTAssertEqual(try parseConfiguration("{}").broadcast.channels, [])
    }

    func testErrorsNameThePosition() {
        let channel = #"{"id": "dHN0LXNyY2gtY2hubA==", "bundleId": "com.a"}"#
        func device(_ channels: String, topic: String = "com.a", environment: String = "sandbox") -> String {
            #"{"token": "\#(Self.token)", "topic": "\#(topic)", "environment": "\#(environment)", "channels": \#(channels)}"#
        }
        let rows: [ErrorRow<String>] = [
            ErrorRow(
                #"{"broadcast": {"channels": {}}}"#, "broadcast.channels: expected an array of channel objects",
                exact: false),
            ErrorRow(
                #"{"broadcast": {"channels": [{"bundleId": "com.a"}]}}"#,
                "broadcast.channels[0].id: missing; a configured channel needs its ID", exact: false),
            ErrorRow(
                #"{"broadcast": {"channels": [\#(channel), {"id": "not base64!", "bundleId": "com.a"}]}}"#,
                #"broadcast.channels[1].id: expected standard padded base64 of 1 to 128 characters (as apns-channel-id takes), got "not base64!""#
            ),
            ErrorRow(
                #"{"broadcast": {"channels": [\#(channel), \#(channel)]}}"#,
                #"broadcast.channels[1].id: duplicate channel ID "dHN0LXNyY2gtY2hubA==" (also broadcast.channels[0])"#),
            ErrorRow(
                #"{"broadcast": {"channels": [{"id": "dHN0", "bundleId": ""}]}}"#,
                #"broadcast.channels[0].bundleId: expected a bundle ID, got """#),
            ErrorRow(
                #"{"broadcast": {"channels": [{"id": "dHN0", "bundleId": "com.a", "messageStoragePolicy": 2}]}}"#,
                "broadcast.channels[0].messageStoragePolicy: expected an integer from 0 to 1, got 2"),
            ErrorRow(
                #"{"broadcast": {"channels": [{"id": "dHN0", "bundleId": "com.a", "environment": "staging"}]}}"#,
                "broadcast.channels[0].environment: ", exact: false),
            ErrorRow(
                #"{"broadcast": {"channels": [{"id": "dHN0", "bundleId": "com.a", "policy": 1}]}}"#,
                "broadcast.channels[0].policy: unknown key", exact: false),
            ErrorRow(
                #"{"broadcast": {"channelLimit": 1, "channels": [\#(channel), {"id": "dHN0", "bundleId": "com.a"}]}}"#,
                "broadcast.channels[1]: more than channelLimit (1) channels of com.a in sandbox"),
            ErrorRow(
                #"{"broadcast": {"totalChannelLimit": 1, "channels": [\#(channel), {"id": "dHN0", "bundleId": "com.b"}]}}"#,
                "broadcast.channels: 2 channels, more than totalChannelLimit (1)"),
            ErrorRow(
                #"{"devices": [\#(device(#"["dHN0LXNyY2gtY2hubA=="]"#))]}"#,
                #"devices[0].channels[0]: no channel "dHN0LXNyY2gtY2hubA==" in broadcast.channels"#, exact: false),
            ErrorRow(
                #"{"broadcast": {"channels": [\#(channel)]}, "devices": [{"token": "00"}, \#(device(#"["dHN0LXNyY2gtY2hubA=="]"#, topic: "com.b"))]}"#,
                #"devices[1].channels[0]: channel "dHN0LXNyY2gtY2hubA==" belongs to com.a in sandbox, not to the device's com.b in sandbox"#
            ),
            ErrorRow(
                #"{"broadcast": {"channels": [\#(channel)]}, "devices": [\#(device(#"["dHN0LXNyY2gtY2hubA=="]"#, environment: "production"))]}"#,
                "belongs to com.a in sandbox, not to the device's com.a in production", exact: false),
            ErrorRow(
                #"{"broadcast": {"channels": [\#(channel)]}, "devices": [\#(device(#"["dHN0LXNyY2gtY2hubA==", "dHN0LXNyY2gtY2hubA=="]"#))]}"#,
                "devices[0].channels[1]: duplicate channel", exact: false),
        ]
        for row in rows {
            do {
                _ = try parseConfiguration(row.input)
                XCTFail("parsed: \(row.input)", line: row.line)
            } catch {
                row.check(error.description)
            }
        }
    }

    /// The channels are in the store of a service made with the options, and count toward its limits.
    func testTheServiceStoreHoldsThem() {
        var options = BroadcastOptions(channelLimit: 2)
        options.channels = [
            ConfiguredChannel(id: "dHN0LXNyY2gtY2hubA==", bundleID: "com.a"),
            ConfiguredChannel(id: "Y2hhbm5lbA==", bundleID: "com.a", environment: .production),
        ]
        let store = BroadcastService(options: options).store
        XCTAssertEqual(
            store.channel("dHN0LXNyY2gtY2hubA==", bundleID: "com.a", environment: .sandbox)?.storagePolicy,
            .mostRecentMessageStored)
        XCTAssertNil(store.channel("Y2hhbm5lbA==", bundleID: "com.a", environment: .sandbox))
        XCTAssertNotNil(store.channel("Y2hhbm5lbA==", bundleID: "com.a", environment: .production))
        XCTAssertFalse(store.add(options.channels[0], nowMilliseconds: 0), "an ID is issued once")
        XCTAssertEqual(store.allChannels().count, 2)
    }
}
