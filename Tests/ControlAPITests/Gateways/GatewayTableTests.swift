import ControlAPI
import XCTest

/// `GatewayTable`: ids, the cap, reserved slots and the idle TTL (docs/testing.md "Isolated gateways").
final class GatewayTableTests: XCTestCase {
    func testIdsCountUpAndAreNeverReused() {
        var table = GatewayTable<String>(capacity: 10)
        let first = table.reserve(ttlSeconds: 0, now: 0)
        let second = table.reserve(ttlSeconds: 0, now: 0)
        XCTAssertEqual(first, "g1")
        XCTAssertEqual(second, "g2")
        table.fill("g1", with: "a", now: 0)
        table.fill("g2", with: "b", now: 0)
        XCTAssertEqual(table.remove("g2"), "b")
        XCTAssertEqual(table.reserve(ttlSeconds: 0, now: 0), "g3")
        XCTAssertNil(table.remove("g2"), "removed once")
    }

    func testTheCapCountsReservedSlotsAndRemovalFreesOne() {
        var table = GatewayTable<Int>(capacity: 2)
        XCTAssertNotNil(table.reserve(ttlSeconds: 0, now: 0))
        XCTAssertNotNil(table.reserve(ttlSeconds: 0, now: 0))
        XCTAssertNil(table.reserve(ttlSeconds: 0, now: 0), "full, though nothing is filled")
        XCTAssertEqual(table.count, 2)
        XCTAssertNil(table.remove("g1"), "a reserved slot holds no value")
        XCTAssertEqual(table.reserve(ttlSeconds: 0, now: 0), "g3")
        var none = GatewayTable<Int>(capacity: 0)
        XCTAssertNil(none.reserve(ttlSeconds: 0, now: 0), "capacity 0 holds none")
    }

    func testOnlyFilledEntriesAreListedAndFoundInCreationOrder() {
        var table = GatewayTable<String>(capacity: 5)
        for _ in 0..<3 { _ = table.reserve(ttlSeconds: 0, now: 0) }
        table.fill("g3", with: "c", now: 0)
        table.fill("g1", with: "a", now: 0)
        XCTAssertEqual(table.filled.map(\.id), ["g1", "g3"])
        XCTAssertNil(table.entry("g2"))
        XCTAssertEqual(table.entry("g3")?.value, "c")
    }

    func testAGatewayExpiresAfterItsTTLUntouched() {
        var table = GatewayTable<String>(capacity: 5)
        _ = table.reserve(ttlSeconds: 10, now: 0)
        _ = table.reserve(ttlSeconds: 0, now: 0)
        table.fill("g1", with: "a", now: 100)
        table.fill("g2", with: "b", now: 100)
        XCTAssertEqual(table.entry("g1")?.expiresAt, 110)
        XCTAssertNil(table.entry("g2")?.expiresAt, "TTL 0 never expires")
        XCTAssertEqual(table.expired(now: 109.9), [])
        XCTAssertEqual(table.expired(now: 110), ["g1"])
        table.touch("g1", now: 105)
        XCTAssertEqual(table.expired(now: 110), [], "a control request restarts the TTL")
        XCTAssertEqual(table.expired(now: 115), ["g1"])
        XCTAssertEqual(table.expired(now: 1e9).contains("g2"), false)
    }

    func testActivityRestartsTheTTLOnlyWhenItMoved() {
        var table = GatewayTable<String>(capacity: 5)
        _ = table.reserve(ttlSeconds: 10, now: 0)
        table.fill("g1", with: "a", now: 0)
        table.observe("g1", activity: 0, now: 2)
        XCTAssertEqual(table.entry("g1")?.lastActive, 0, "a new gateway starts at 0: nothing happened")
        table.observe("g1", activity: 3, now: 5)
        XCTAssertEqual(table.entry("g1")?.lastActive, 5, "pushes before the first observation count")
        table.observe("g1", activity: 3, now: 8)
        XCTAssertEqual(table.entry("g1")?.lastActive, 5, "no push, no connection: untouched")
        table.observe("g1", activity: 4, now: 9)
        XCTAssertEqual(table.entry("g1")?.lastActive, 9)
        XCTAssertEqual(table.expired(now: 18.5), [])
        XCTAssertEqual(table.expired(now: 19), ["g1"])
    }

    /// `holder(ofName:)` finds a held gateway (reserved or filled) by the name asked for, or by
    /// its id when it was made without one; a removed one frees its name.
    func testANameIsHeldByOneGatewayAtATime() {
        var table = GatewayTable<Int>(capacity: 5)
        XCTAssertEqual(table.reserve(ttlSeconds: 0, now: 0, name: "suite-a"), "g1")
        XCTAssertEqual(table.holder(ofName: "suite-a"), "g1", "a reserved slot holds its name")
        XCTAssertEqual(table.reserve(ttlSeconds: 0, now: 0), "g2")
        table.fill("g1", with: 1, now: 0)
        XCTAssertEqual(table.holder(ofName: "suite-a"), "g1")
        XCTAssertEqual(table.holder(ofName: "g2"), "g2", "an unnamed gateway is named by its id")
        XCTAssertNil(table.holder(ofName: "g1"), "g1 is named suite-a")
        XCTAssertNil(table.holder(ofName: "suite-b"))
        table.remove("g1")
        XCTAssertNil(table.holder(ofName: "suite-a"))
    }
}
