import APNsCore
import JSONInput
import Synchronization
import XCTest

@testable import Devices

/// The server's book of virtual devices (docs/device-model.md §7): registration, the push path's
/// check, the lifecycle of each push kept by seq, the clock driving what falls due, interactions.
final class DeviceBookTests: XCTestCase {
    typealias F = LifecycleFixture

    /// A movable clock, as `/v1/clock` moves the server's.
    final class Clock: Sendable {
        let seconds = Mutex(F.t0)
        func now() -> Double { seconds.withLock { $0 } }
        func move(by delta: Double) { seconds.withLock { $0 += delta } }
    }

    func makeBook(capacity: Int = 100) -> (DeviceBook, Clock) {
        let clock = Clock()
        return (DeviceBook(notificationCapacity: capacity, clock: { clock.now() }), clock)
    }

    func states(_ book: DeviceBook, _ seq: UInt64) -> [String] {
        book.notification(seq)?.events.map(\.state.consoleName) ?? []
    }

    /// The table's key hashes a token's ends only (`DeviceBook.TokenKey`): tokens alike there, or
    /// short, are still told apart by equality, and `make` runs only for a virtual device.
    func testTokensAlikeAtTheEndsAreDifferentDevices() throws {
        let (book, _) = makeBook()
        let ends = String(repeating: "ab", count: 8)
        let first = ends + String(repeating: "01", count: 16) + ends
        let second = ends + String(repeating: "02", count: 16) + ends
        let short = "0a0b"
        try book.put(F.device { $0.token = first })
        try book.put(F.device { $0.token = short })
        XCTAssertTrue(book.contains(first))
        XCTAssertFalse(book.contains(second))
        XCTAssertTrue(book.contains(short))
        XCTAssertFalse(book.contains("0a0c"))
        var made = 0
        XCTAssertFalse(
            book.receive(token: second) {
                made += 1
                return F.alert(1)
            })
        XCTAssertEqual(made, 0)
        XCTAssertTrue(
            book.receive(token: first) {
                made += 1
                return F.alert(2)
            })
        XCTAssertTrue(
            book.receive(token: short) {
                made += 1
                return F.alert(3)
            })
        XCTAssertEqual(made, 2)
        XCTAssertEqual(book.notification(2)?.token, first)
        XCTAssertEqual(states(book, 2), ["Received by APNs", "Delivered to Device"])
        XCTAssertEqual(book.notification(3)?.token, short)
        XCTAssertTrue(book.remove(token: first))
        XCTAssertFalse(book.contains(first))
        XCTAssertTrue(book.contains(short))
    }

    /// A catch-up scans the devices only once something may have fallen due (a long poll calls
    /// it every few milliseconds); a forced one (the clock moved) always scans.
    func testACatchUpWithNothingDueScansNoDevice() throws {
        let (book, clock) = makeBook()
        try book.put(F.device { $0.connectivity = .offline })
        book.catchUp()
        let first = book.catchUpScans
        XCTAssertTrue(book.receive(F.alert(1, expiresIn: 100), token: F.token))
        book.catchUp()
        XCTAssertEqual(book.catchUpScans, first, "nothing due before the expiry: no scan")
        clock.move(by: 150)
        book.catchUp()
        XCTAssertEqual(book.catchUpScans, first + 1)
        XCTAssertEqual(
            book.notifications([1])[1]?.events.last?.state.consoleName, "Discarded - Expired (From Storage)")
        book.catchUp()
        XCTAssertEqual(book.catchUpScans, first + 1, "nothing pending any more")
        book.catchUp(force: true)
        XCTAssertEqual(book.catchUpScans, first + 2)
    }

    func testTokensThatAreNotVirtualDevicesAreLeftAlone() throws {
        let (book, _) = makeBook()
        XCTAssertTrue(book.isEmpty)
        XCTAssertFalse(book.receive(F.alert(1), token: F.token))
        XCTAssertFalse(book.hasNotifications)
        try book.put(F.device())
        XCTAssertFalse(book.isEmpty)
        XCTAssertFalse(book.receive(F.alert(2), token: String(repeating: "cd", count: 32)))
        XCTAssertNil(book.notification(2))
        XCTAssertTrue(book.receive(F.alert(3), token: F.token))
        XCTAssertEqual(states(book, 3), ["Received by APNs", "Delivered to Device"])
        XCTAssertEqual(book.notification(3)?.reaction?.presentation.banner, true)
        XCTAssertTrue(book.remove(token: F.token))
        XCTAssertTrue(book.isEmpty)
        // The notification stays readable after its device is gone.
        XCTAssertEqual(states(book, 3).count, 2)
    }

    func testComingOnlineDeliversTheStoredPushAndRecordsTheReplacedOne() throws {
        let (book, clock) = makeBook()
        XCTAssertTrue(try book.put(F.device { $0.connectivity = .offline }))
        book.receive(F.alert(1, collapse: "c"), token: F.token)
        clock.move(by: 10)
        book.receive(F.alert(2, collapse: "c"), token: F.token)
        XCTAssertEqual(book.lifecycle(of: F.token)?.stored?.push.id, 2)
        clock.move(by: 10)
        XCTAssertFalse(try book.put(F.device { $0.connectivity = .online }))
        XCTAssertEqual(states(book, 1), ["Received by APNs", "Stored - Device Offline", "Replaced"])
        XCTAssertEqual(
            states(book, 2), ["Received by APNs", "Stored - Device Offline", "Delivered to Device (From Storage)"])
        XCTAssertEqual(book.notification(2)?.events.last?.at, F.t0 + 20)
        XCTAssertEqual(book.lifecycle(of: F.token)?.delivered, [2])
    }

    /// A device removed (or the book cleared) while it stores a push ends that push as if the
    /// app were removed, instead of leaving it Stored for ever.
    func testRemovingADeviceEndsWhatItStored() throws {
        for clears in [false, true] {
            let (book, clock) = makeBook()
            try book.put(F.device { $0.connectivity = .offline })
            book.receive(F.alert(1), token: F.token)
            clock.move(by: 5)
            if clears { XCTAssertEqual(book.clear(), 1) } else { XCTAssertTrue(book.remove(token: F.token)) }
            XCTAssertEqual(
                states(book, 1),
                ["Received by APNs", "Stored - Device Offline", "Discarded - Token Unregistered (From Storage)"],
                "clear: \(clears)")
            XCTAssertEqual(book.notification(1)?.events.last?.at, F.t0 + 5)
        }
    }

    /// Clearing the notifications (the records were cleared) forgets them and what the devices
    /// stored, held, delivered and showed, with no transition; the devices stay in their state.
    func testClearingTheNotificationsKeepsTheDevices() throws {
        let (book, _) = makeBook()
        try book.put(F.device())
        book.receive(F.alert(1, body: #"{"aps":{"alert":"hi","badge":3}}"#), token: F.token)
        try book.put(F.device { $0.connectivity = .offline })
        book.receive(F.alert(2), token: F.token)
        XCTAssertEqual(book.clearNotifications(), 2)
        XCTAssertNil(book.notification(1))
        XCTAssertNil(book.notification(2))
        XCTAssertFalse(book.hasNotifications)
        XCTAssertEqual(book.metrics().total, DeliveryMetrics.Counts())
        let lifecycle = try XCTUnwrap(book.lifecycle(of: F.token))
        XCTAssertNil(lifecycle.stored)
        XCTAssertEqual(lifecycle.delivered, [])
        XCTAssertEqual(lifecycle.shown, [])
        XCTAssertEqual(lifecycle.badge, 3)
        XCTAssertEqual(lifecycle.device.connectivity, .offline)
        XCTAssertEqual(book.count, 1)
    }

    func testMovingTheClockRunsTheExpirationAtItsTime() throws {
        let (book, clock) = makeBook()
        try book.put(F.device { $0.connectivity = .offline })
        book.receive(F.alert(1, expiresIn: 60), token: F.token)
        clock.move(by: 30)
        book.catchUp()
        XCTAssertEqual(states(book, 1).last, "Stored - Device Offline")
        clock.move(by: 3600)
        book.catchUp()
        XCTAssertEqual(states(book, 1).last, "Discarded - Expired (From Storage)")
        XCTAssertEqual(book.notification(1)?.events.last?.at, F.t0 + 60)
    }

    func testAnUpdateThatChangesTheIdentityIsRefusedAndChangesNothing() throws {
        let (book, _) = makeBook()
        try book.put(F.device { $0.connectivity = .offline })
        XCTAssertThrowsError(
            try book.put(
                F.device {
                    $0.environment = .production
                    $0.connectivity = .online
                })
        ) { error in
            XCTAssertEqual((error as? InputError)?.path, "environment")
        }
        XCTAssertEqual(book.lifecycle(of: F.token)?.device.connectivity, .offline)
    }

    func testInteractionsAreRecordedOnTheNotification() throws {
        let (book, _) = makeBook()
        try book.put(
            F.device {
                $0.appState = .notRunning
                $0.categories = [
                    NotificationCategory(
                        identifier: "MEETING", actions: [NotificationAction(identifier: "ACCEPT", title: "Accept")])
                ]
            })
        book.receive(F.alert(1, body: #"{"aps":{"alert":"hi","category":"MEETING"}}"#), token: F.token)
        XCTAssertThrowsError(try book.interact(.action("ACCEPTT", text: nil), with: 1, token: F.token)) { error in
            XCTAssertEqual((error as? InputError)?.path, "action")
        }
        XCTAssertEqual(book.notification(1)?.interactions, [])
        let outcome = try XCTUnwrap(try book.interact(.action("ACCEPT", text: nil), with: 1, token: F.token))
        XCTAssertEqual(outcome.response?.actionIdentifier, "ACCEPT")
        XCTAssertEqual(book.notification(1)?.interactions, [outcome])
        XCTAssertNil(try book.interact(.tap, with: 1, token: String(repeating: "cd", count: 32)))
    }

    func testTheOldestNotificationsGoPastTheCapacity() throws {
        let (book, _) = makeBook(capacity: 2)
        try book.put(F.device())
        for seq in UInt64(1)...3 { book.receive(F.alert(seq), token: F.token) }
        XCTAssertNil(book.notification(1))
        XCTAssertNotNil(book.notification(2))
        XCTAssertNotNil(book.notification(3))
        XCTAssertEqual(book.clear(), 1)
        XCTAssertTrue(book.isEmpty)
    }
}
