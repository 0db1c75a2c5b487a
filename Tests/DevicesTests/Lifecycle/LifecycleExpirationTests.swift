import Devices
import XCTest

/// docs/device-model.md §2.2: `apns-expiration` and the 30-day storage limit.
final class LifecycleExpirationTests: XCTestCase {
    typealias F = LifecycleFixture
    typealias Row = LifecycleStorageTests.Row

    static let days30: Double = 30 * 86_400

    static let rows: [Row] = [
        Row(
            "0 to an offline device", .offline, [.push(F.alert(1, expiresIn: 0), at: 0)],
            ["1 received @0", "1 discarded-expired @0"]),
        Row(
            "0 to an online device: one attempt", .online, [.push(F.alert(1, expiresIn: 0), at: 0)],
            ["1 received @0", "1 delivered @0"]),
        Row(
            "0 held at low power", .lowPower, [.push(F.alert(1, priority: 5, expiresIn: 0), at: 0)],
            ["1 received @0", "1 discarded-expired @0"]),
        Row(
            "date, online before it", .offline,
            [.push(F.alert(1, expiresIn: 100), at: 0), .connectivity(.online, at: 50)],
            ["1 received @0", "1 stored-deviceOffline @0", "1 delivered-from-storage @50"]),
        Row(
            "date passes while stored", .offline, [.push(F.alert(1, expiresIn: 100), at: 0), .advance(150)],
            ["1 received @0", "1 stored-deviceOffline @0", "1 discarded-expired-from-storage @100"]),
        Row(
            "date passes, then online: nothing delivered", .offline,
            [.push(F.alert(1, expiresIn: 100), at: 0), .connectivity(.online, at: 150)],
            ["1 received @0", "1 stored-deviceOffline @0", "1 discarded-expired-from-storage @100"]),
        Row(
            "absent: 30 days", .offline, [.push(F.alert(1), at: 0), .advance(days30 - 1), .advance(days30)],
            ["1 received @0", "1 stored-deviceOffline @0", "1 discarded-expired-from-storage @2592000"]),
        Row(
            "beyond 30 days: 30 days", .offline,
            [.push(F.alert(1, expiresIn: 40 * 86_400), at: 0), .advance(31 * 86_400)],
            ["1 received @0", "1 stored-deviceOffline @0", "1 discarded-expired-from-storage @2592000"]),
        Row(
            "date in the past: one attempt", .offline, [.push(F.alert(1, expiresIn: -10), at: 0)],
            ["1 received @0", "1 discarded-expired @0"]),
        Row(
            "held at low power until its date", .lowPower,
            [.push(F.alert(1, priority: 5, expiresIn: 100), at: 0), .advance(1000)],
            ["1 received @0", "1 stored-powerConsiderations @0", "1 discarded-expired-from-storage @100"]),
    ]

    func testExpirationTable() {
        for row in Self.rows {
            let device = F.device { $0.connectivity = row.connectivity }
            XCTAssertEqual(F.run(device, row.steps).events, row.events, row.name, line: row.line)
        }
    }
}
