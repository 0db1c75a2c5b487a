import APNsCore
import Foundation
import Synchronization
import XCTest

@testable import Broadcast

/// The channel store (docs/broadcast.md §A5): per app and environment, IDs never reused, the limit.
final class ChannelStoreTests: XCTestCase {
    /// IDs from a fixed list, then repeating it: a store must skip every one it issued.
    final class IDs: Sendable {
        let list: [String]
        let next = Mutex(0)
        init(_ list: [String]) { self.list = list }
        func make() -> String {
            next.withLock { index in
                defer { index += 1 }
                return list[index % list.count]
            }
        }
    }

    func create(_ store: ChannelStore, _ bundle: String = "com.example.app", _ env: APNsEnvironment = .sandbox)
        -> Result<Channel, BroadcastReason>
    {
        store.create(bundleID: bundle, environment: env, policy: .mostRecentMessageStored, nowMilliseconds: 1000)
    }

    func testCreateReadListDelete() throws {
        let store = ChannelStore()
        let made = try create(store).get()
        XCTAssertTrue(Base64.isChannelID(made.id), made.id)
        XCTAssertEqual(made.id.count, 24)
        XCTAssertEqual(store.channel(made.id, bundleID: "com.example.app", environment: .sandbox), made)
        XCTAssertEqual(made.storagePolicy, .mostRecentMessageStored)
        XCTAssertEqual(made.createdAtMilliseconds, 1000)
        let second = try create(store).get()
        XCTAssertEqual(
            store.channels(bundleID: "com.example.app", environment: .sandbox).map(\.id), [made.id, second.id])
        XCTAssertTrue(store.delete(made.id, bundleID: "com.example.app", environment: .sandbox))
        XCTAssertFalse(store.delete(made.id, bundleID: "com.example.app", environment: .sandbox))
        XCTAssertNil(store.channel(made.id, bundleID: "com.example.app", environment: .sandbox))
        XCTAssertEqual(store.channels(bundleID: "com.example.app", environment: .sandbox).map(\.id), [second.id])
        XCTAssertEqual(store.allChannels().map(\.id), [second.id])
    }

    func testChannelsBelongToTheirAppAndEnvironment() throws {
        let store = ChannelStore()
        let made = try create(store).get()
        XCTAssertNil(store.channel(made.id, bundleID: "com.example.app", environment: .production))
        XCTAssertNil(store.channel(made.id, bundleID: "com.example.other", environment: .sandbox))
        XCTAssertFalse(store.delete(made.id, bundleID: "com.example.app", environment: .production))
        XCTAssertEqual(store.channels(bundleID: "com.example.app", environment: .production), [])
        let other = try create(store, "com.example.app", .production).get()
        XCTAssertEqual(store.allChannels().map(\.id), [other.id, made.id])  // production sorts first
    }

    func testIDsAreNeverReusedNotEvenAfterADelete() throws {
        let ids = IDs(["AAAA", "AAAA", "BBBB", "AAAA", "BBBB", "CCCC"])
        let store = ChannelStore(makeID: { ids.make() })
        let first = try create(store).get()
        XCTAssertEqual(first.id, "AAAA")
        XCTAssertTrue(store.delete("AAAA", bundleID: "com.example.app", environment: .sandbox))
        XCTAssertEqual(try create(store).get().id, "BBBB")
        // Issued to another app or environment counts too.
        XCTAssertEqual(try create(store, "com.example.other", .production).get().id, "CCCC")
    }

    func testTheLimitIsPerAppAndEnvironmentAndADeleteFreesAPlace() throws {
        let store = ChannelStore(limit: 2)
        let first = try create(store).get()
        _ = try create(store).get()
        XCTAssertEqual(create(store), .failure(.cannotCreateChannelConfig))
        XCTAssertNoThrow(try create(store, "com.example.app", .production).get())
        XCTAssertNoThrow(try create(store, "com.example.other").get())
        store.delete(first.id, bundleID: "com.example.app", environment: .sandbox)
        XCTAssertNoThrow(try create(store).get())
        XCTAssertEqual(ChannelStore().limit, 10_000)
    }

    /// The store's total bound (`totalLimit`) holds across apps and environments; a delete
    /// frees a place there too.
    func testTheTotalLimitHoldsAcrossAppsAndADeleteFreesAPlace() throws {
        let store = ChannelStore(limit: 10, totalLimit: 3)
        let first = try create(store, "com.a").get()
        _ = try create(store, "com.b").get()
        _ = try create(store, "com.a", .production).get()
        XCTAssertEqual(create(store, "com.c"), .failure(.cannotCreateChannelConfig))
        XCTAssertTrue(store.delete(first.id, bundleID: "com.a", environment: .sandbox))
        XCTAssertNotNil(try? create(store, "com.c").get())
        XCTAssertEqual(create(store, "com.a"), .failure(.cannotCreateChannelConfig))
        XCTAssertEqual(ChannelStore().totalLimit, 100_000)
    }

    /// A create changes its app's table in place: creating at 9,000 channels costs about what it
    /// costs at none. Copying the table on each create (as the store once did) made the 500
    /// creates after 9,000 about fifteen times slower than the first 500 (debug build); best of
    /// three rounds.
    func testCreatesStayFastAtNineThousandChannels() throws {
        func seconds(_ body: () -> Void) -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        var best = Double.infinity
        for _ in 0..<3 {
            let store = ChannelStore()
            let first = seconds { for _ in 0..<500 { _ = create(store) } }
            for _ in 0..<8_500 { _ = create(store) }
            let later = seconds { for _ in 0..<500 { _ = create(store) } }
            XCTAssertEqual(store.channels(bundleID: "com.example.app", environment: .sandbox).count, 9_500)
            best = min(best, later / first)
        }
        XCTAssertLessThan(best, 6, "creates at 9,000 channels vs at none: the app's table is copied per create?")
    }

    func testRandomIDsAreDistinctBase64() {
        let ids = Set((0..<1000).map { _ in ChannelStore.randomID() })
        XCTAssertEqual(ids.count, 1000)
        XCTAssertTrue(ids.allSatisfy { Base64.isChannelID($0) && $0.hasSuffix("==") })
    }
}
