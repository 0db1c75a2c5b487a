import Devices
import XCTest

/// docs/device-model.md §2.5: low power holds priority 5 and 1 and delivers them in bursts.
final class LifecyclePowerTests: XCTestCase {
    typealias F = LifecycleFixture
    typealias Row = LifecycleStorageTests.Row

    /// Bursts 900 s after the first hold, no jitter.
    static let options = DeviceModelOptions(lowPowerBurstSeconds: 900, lowPowerBurstJitterSeconds: 0)

    static let rows: [Row] = [
        Row("priority 10 is delivered", .lowPower, [.push(F.alert(1), at: 0)], ["1 received @0", "1 delivered @0"]),
        Row(
            "priority 5 is held until the burst", .lowPower,
            [.push(F.alert(1, priority: 5), at: 0), .advance(899), .advance(900)],
            ["1 received @0", "1 stored-powerConsiderations @0", "1 delivered-from-storage @900"]),
        Row(
            "priority 1 and 5 go out in one burst", .lowPower,
            [.push(F.alert(1, priority: 1), at: 0), .push(F.alert(2, priority: 5), at: 100), .advance(2000)],
            [
                "1 received @0", "1 stored-powerConsiderations @0", "2 received @100",
                "2 stored-powerConsiderations @100",
                "1 delivered-from-storage @900", "2 delivered-from-storage @900",
            ]),
        Row(
            "online delivers the held at once", .lowPower,
            [.push(F.alert(1, priority: 5), at: 0), .connectivity(.online, at: 50)],
            ["1 received @0", "1 stored-powerConsiderations @0", "1 delivered-from-storage @50"]),
        Row(
            "priority 5 online is delivered", .online, [.push(F.alert(1, priority: 5), at: 0)],
            ["1 received @0", "1 delivered @0"]),
        Row(
            "stored priority 10 delivered on waking in low power", .offline,
            [.push(F.alert(1), at: 0), .connectivity(.lowPower, at: 50)],
            ["1 received @0", "1 stored-deviceOffline @0", "1 delivered-from-storage @50"]),
        Row(
            "stored priority 5 held on waking in low power", .offline,
            [.push(F.alert(1, priority: 5), at: 0), .connectivity(.lowPower, at: 50), .advance(2000)],
            [
                "1 received @0", "1 stored-deviceOffline @0", "1 stored-powerConsiderations @50",
                "1 delivered-from-storage @950",
            ]),
    ]

    func testPowerTable() {
        for row in Self.rows {
            let device = F.device { $0.connectivity = row.connectivity }
            XCTAssertEqual(F.run(device, options: Self.options, row.steps).events, row.events, row.name, line: row.line)
        }
    }

    /// The burst's jitter comes from `seed`: the same seed, the same burst; within the jitter.
    /// At most `lowPowerHoldLimit` held: past it the oldest is Replaced by the newest, so a load
    /// test to one device in low power stays bounded (the adversarial review held 400,000).
    func testHoldsAreBoundedTheOldestReplaced() {
        let options = DeviceModelOptions(lowPowerBurstSeconds: 900, lowPowerBurstJitterSeconds: 0, lowPowerHoldLimit: 2)
        let (events, lifecycle) = F.run(
            F.device { $0.connectivity = .lowPower }, options: options,
            [
                .push(F.alert(1, priority: 5), at: 0), .push(F.alert(2, priority: 5), at: 1),
                .push(F.alert(3, priority: 5), at: 2),
            ])
        XCTAssertEqual(
            events,
            [
                "1 received @0", "1 stored-powerConsiderations @0", "2 received @1", "2 stored-powerConsiderations @1",
                "3 received @2", "3 stored-powerConsiderations @2 replacing 1", "1 replaced-by-3 @2",
            ])
        XCTAssertEqual(lifecycle.powerHeld.map(\.push.id), [2, 3])
        XCTAssertEqual(DeviceModelOptions().lowPowerHoldLimit, 100)
    }

    func testBurstJitterIsSeeded() {
        func burst(seed: UInt64) -> Double? {
            let options = DeviceModelOptions(lowPowerBurstSeconds: 900, lowPowerBurstJitterSeconds: 300, seed: seed)
            let device = F.device { $0.connectivity = .lowPower }
            return F.run(device, options: options, [.push(F.alert(1, priority: 5), at: 0)]).lifecycle.nextBurstAt
        }
        let first = burst(seed: 7), again = burst(seed: 7), other = burst(seed: 8)
        XCTAssertEqual(first, again)
        XCTAssertNotEqual(first, other)
        for value in [first, other] {
            let offset = (value ?? 0) - F.t0
            XCTAssertTrue((900...1200).contains(offset), "\(offset)")
            XCTAssertNotEqual(offset, 900)
        }
    }
}
