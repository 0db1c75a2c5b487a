import APNsCore
import JSONInput
import XCTest

@testable import Devices

/// Broadcast fan-out to virtual devices (docs/broadcast.md §5): subscriptions by `channels`, one
/// notification per subscribed device keyed by an id of its own and found by the broadcast's seq,
/// and what each storage policy leaves an offline device.
final class DeviceBookFanOutTests: XCTestCase {
    typealias F = LifecycleFixture
    typealias Clock = DeviceBookTests.Clock

    static let channel = "Y2hhbm5lbC1vbmU="
    static let other = "Y2hhbm5lbC10d28="
    static let body = Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#.utf8)

    func token(_ digit: Character) -> String { String(repeating: String(digit), count: 64) }

    func makeBook() -> (DeviceBook, Clock) {
        let clock = Clock()
        return (DeviceBook(notificationCapacity: 100, clock: { clock.now() }), clock)
    }

    /// Three devices on the channel (one offline), one on another channel, one on none.
    func subscribed(_ book: DeviceBook) throws {
        for digit in ["a", "b", "c"] as [Character] {
            try book.put(
                F.device {
                    $0.token = token(digit)
                    $0.channels = [Self.channel]
                    if digit == "b" { $0.connectivity = .offline }
                })
        }
        try book.put(
            F.device {
                $0.token = token("d")
                $0.channels = [Self.other]
            })
        try book.put(F.device { $0.token = token("e") })
    }

    func broadcast(_ seq: UInt64, policy1: Bool, expiration: Int64? = nil) -> DeviceBroadcast {
        DeviceBroadcast(
            seq: seq, channelID: Self.channel, priority: 10, expiration: expiration,
            storageLimitSeconds: policy1 ? 8 * 3600 : nil, body: Self.body)
    }

    func states(_ copies: [DeviceBook.Notification]) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: copies.map { ($0.token, $0.events.map(\.state.consoleName)) })
    }

    /// A row per storage policy: the online devices get it delivered, the offline one has it
    /// stored for 8 hours (policy 1) or misses it (policy 0); every copy is its own notification.
    func testEachSubscribedDeviceGetsItsOwnLifecycleByPolicy() throws {
        let rows: [(policy1: Bool, offline: [String], afterOnline: [String])] = [
            (
                true, ["Received by APNs", "Stored - Device Offline"],
                ["Received by APNs", "Stored - Device Offline", "Delivered to Device (From Storage)"]
            ),
            (false, ["Received by APNs", "Discarded - Expired"], ["Received by APNs", "Discarded - Expired"]),
        ]
        for row in rows {
            let (book, clock) = makeBook()
            try subscribed(book)
            XCTAssertEqual(book.subscribers(of: Self.channel), [token("a"), token("b"), token("c")])
            XCTAssertEqual(book.fanOut(broadcast(7, policy1: row.policy1)), 3, "policy1 \(row.policy1)")
            let copies = book.fanOut(of: 7)
            XCTAssertEqual(copies.map(\.token), [token("a"), token("b"), token("c")])
            XCTAssertEqual(Set(copies.map(\.id)).count, 3, "one id per device")
            XCTAssertTrue(copies.allSatisfy { $0.id >= DeviceBook.fanOutIDBase && $0.broadcast == 7 })
            XCTAssertTrue(copies.allSatisfy { $0.pushType == .liveactivity })
            XCTAssertNil(book.notification(7), "the record's seq is no device notification")
            XCTAssertEqual(book.notification(copies[0].id)?.token, token("a"))
            var byToken = states(copies)
            XCTAssertEqual(byToken[token("a")], ["Received by APNs", "Delivered to Device"])
            XCTAssertEqual(byToken[token("c")], ["Received by APNs", "Delivered to Device"])
            XCTAssertEqual(byToken[token("b")], row.offline)
            clock.move(by: 3600)
            try book.put(
                F.device {
                    $0.token = token("b")
                    $0.channels = [Self.channel]
                })
            byToken = states(book.fanOut(of: 7))
            XCTAssertEqual(byToken[token("b")], row.afterOnline)
            XCTAssertEqual(book.metrics().byPushType["liveactivity"]?.received, 3)
        }
    }

    /// Policy 1 keeps the copy 8 hours (the channel's limit), not the device model's 30 days.
    func testPolicy1KeepsTheCopyForItsLimit() throws {
        let (book, clock) = makeBook()
        try subscribed(book)
        book.fanOut(broadcast(3, policy1: true))
        clock.move(by: 8 * 3600 + 1)
        book.catchUp()
        let offline = book.fanOut(of: 3).first { $0.token == token("b") }
        XCTAssertEqual(offline?.state?.consoleName, "Discarded - Expired (From Storage)")
        XCTAssertEqual(offline?.events.last?.at, F.t0 + 8 * 3600)
    }

    /// Without subscribers (or devices) a broadcast reaches none: fan-out 0, nothing kept.
    func testNoSubscribersIsFanOutZero() throws {
        let (book, _) = makeBook()
        XCTAssertEqual(book.fanOut(broadcast(1, policy1: true)), 0)
        try book.put(
            F.device {
                $0.token = token("d")
                $0.channels = [Self.other]
            })
        XCTAssertEqual(book.fanOut(broadcast(2, policy1: true)), 0)
        XCTAssertTrue(book.fanOut(of: 2).isEmpty)
        XCTAssertTrue(book.fanOuts([1, 2]).isEmpty)
    }

    /// A changed `channels`, a removed device and `clear()` keep the subscriber index true; a
    /// cleared book forgets its fan-outs.
    func testSubscriptionsFollowTheDevices() throws {
        let (book, _) = makeBook()
        try subscribed(book)
        try book.put(
            F.device {
                $0.token = token("a")
                $0.channels = [Self.other]
            })
        XCTAssertEqual(book.subscribers(of: Self.channel), [token("b"), token("c")])
        XCTAssertEqual(book.subscribers(of: Self.other), [token("a"), token("d")])
        book.remove(token: token("c"))
        XCTAssertEqual(book.subscribers(of: Self.channel), [token("b")])
        XCTAssertEqual(book.fanOut(broadcast(5, policy1: true)), 1)
        XCTAssertEqual(book.fanOuts([5])[5]?.map(\.token), [token("b")])
        book.clearNotifications()
        XCTAssertTrue(book.fanOut(of: 5).isEmpty)
        book.clear()
        XCTAssertEqual(book.subscribers(of: Self.other), [])
    }

    /// `channels` are read as the other fields: repeats and empty IDs are refused by index.
    func testChannelsAreCheckedWhenRead() throws {
        func decode(_ channels: String) throws -> VirtualDevice {
            try StrictJSONDecoder().decode(
                VirtualDevice.self,
                from: Array(
                    #"{"token":"\#(token("a"))","topic":"com.a","environment":"sandbox","channels":\#(channels)}"#.utf8)
            )
        }
        XCTAssertEqual(try decode(#"["x","y"]"#).channels, ["x", "y"])
        XCTAssertEqual(VirtualDevice(token: token("a"), topic: "com.a").channels, [])
        for (channels, path) in [(#"["x","x"]"#, "channels[1]"), (#"["x",""]"#, "channels[1]")] {
            XCTAssertThrowsError(try decode(channels)) { error in
                XCTAssertTrue("\(error)".contains(path), "\(error)")
            }
        }
    }
}
