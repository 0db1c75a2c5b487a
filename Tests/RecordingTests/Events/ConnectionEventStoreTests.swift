import XCTest

@testable import APNsCore
@testable import Recording
@testable import TestFixtures

final class ConnectionEventStoreTests: XCTestCase {
    func testSequenceNumbersCountFromOneAndSurviveAClear() {
        let store = ConnectionEventStore(capacity: 10)
        XCTAssertEqual(store.lastSeq, 0)
        XCTAssertEqual((1...3).map { _ in store.append(EventFixtures.event()) }, [1, 2, 3])
        XCTAssertEqual(store.query(ConnectionEventFilter()).events.map(\.seq), [1, 2, 3])
        XCTAssertEqual(store.clear(), 3)
        XCTAssertEqual(store.query(ConnectionEventFilter()).events.count, 0)
        XCTAssertEqual(store.append(EventFixtures.event()), 4)
        XCTAssertEqual(store.lastSeq, 4)
        XCTAssertNil(store.event(seq: 3), "cleared")
        XCTAssertEqual(store.event(seq: 4)?.seq, 4)
    }

    func testAFullRingEvictsTheOldestAndCountsIt() {
        let store = ConnectionEventStore(capacity: 3)
        for i in 1...5 { store.append(EventFixtures.event(connection: UInt64(i))) }
        let result = store.query(ConnectionEventFilter())
        XCTAssertEqual(result.events.map(\.seq), [3, 4, 5])
        XCTAssertEqual(result.events.map(\.connectionID), [3, 4, 5])
        XCTAssertEqual(result.evicted, 2)
        XCTAssertEqual(result.lastSeq, 5)
        XCTAssertNil(store.event(seq: 2))
        XCTAssertEqual(store.event(seq: 3)?.connectionID, 3)
        store.clear()
        XCTAssertEqual(store.stats().evicted, 0, "a clear is not an eviction")
    }

    func testLimitAndAfterPageThroughTheRing() {
        let store = ConnectionEventStore(capacity: 4)
        for _ in 1...6 { store.append(EventFixtures.event()) }  // holds 3...6
        // (after, limit, expected seqs, more)
        let rows: [(UInt64?, Int?, [UInt64], Bool, UInt)] = [
            (nil, nil, [3, 4, 5, 6], false, #line),
            (nil, 2, [3, 4], true, #line),
            (4, 2, [5, 6], false, #line),
            (1, nil, [3, 4, 5, 6], false, #line),
            (6, nil, [], false, #line),
            (9, nil, [], false, #line),
            (nil, 0, [], true, #line),
            (nil, -1, [], true, #line),
        ]
        for (after, limit, seqs, more, line) in rows {
            let result = store.query(ConnectionEventFilter(after: after), limit: limit)
            XCTAssertEqual(result.events.map(\.seq), seqs, line: line)
            XCTAssertEqual(result.more, more, line: line)
        }
    }

    func testStatsCountByKindSinceStart() {
        let store = ConnectionEventStore(capacity: 2)
        store.append(
            EventFixtures.event(.opened(alpn: "h2", tls: true, maxConcurrentStreams: 1000), origin: .lifecycle))
        store.append(
            EventFixtures.event(.goaway(errorCode: 0, lastStreamID: 1, debugData: [], closeAfterMilliseconds: 0)))
        store.append(
            EventFixtures.event(.goaway(errorCode: 0, lastStreamID: 3, debugData: [], closeAfterMilliseconds: 0)))
        store.clear()
        store.append(EventFixtures.event(.refused, origin: .listenerCondition, connection: nil))
        XCTAssertEqual(
            store.stats(),
            ConnectionEventStats(
                recorded: 4, byKind: [.opened: 1, .goaway: 2, .refused: 1],
                records: 1, evicted: 0, lastSeq: 4, capacity: 2))
    }

    func testGenerationChangesOnAppendAndClear() {
        let store = ConnectionEventStore()
        let start = store.generation
        store.append(EventFixtures.event())
        let afterAppend = store.generation
        XCTAssertNotEqual(afterAppend, start)
        store.clear()
        XCTAssertNotEqual(store.generation, afterAppend)
        XCTAssertEqual(ConnectionEventStore(capacity: 0).capacity, 1, "at least one")
    }

    func testSequenceRingScansFromAnySeqAfterWrapping() {
        var ring = SequenceRing<String>(capacity: 3)
        XCTAssertNil(ring.append("a"))
        ring.append("b")
        ring.append("c")
        XCTAssertEqual(ring.append("d"), "a", "the evicted element is handed back")
        ring.append("e")  // holds c(3) d(4) e(5), wrapped
        func scan(after: UInt64?) -> [String] {
            var seen: [String] = []
            ring.forEach(after: after) {
                seen.append($0)
                return true
            }
            return seen
        }
        XCTAssertEqual(scan(after: nil), ["c", "d", "e"])
        XCTAssertEqual(scan(after: 0), ["c", "d", "e"])
        XCTAssertEqual(scan(after: 3), ["d", "e"])
        XCTAssertEqual(scan(after: 4), ["e"])
        XCTAssertEqual(scan(after: 5), [])
        XCTAssertEqual([3, 4, 5, 2, 6].map { ring.element(seq: $0) }, ["c", "d", "e", nil, nil])
        XCTAssertEqual(ring.evicted, 2)
        let found = ring.query(after: 4, limit: nil, where: { _, _ in true }) { _, element in element }
        XCTAssertEqual([found.firstSeq, found.lastSeq], [3, 5], "the oldest held, whatever the query skipped")
        XCTAssertEqual(ring.removeAll(), ["c", "d", "e"], "oldest first")
        let empty = ring.query(after: nil, limit: nil, where: { _, _ in true }) { _, element in element }
        XCTAssertEqual([empty.firstSeq, empty.lastSeq], [6, 5], "none held: lastSeq + 1")
        XCTAssertEqual([UInt64(ring.count), ring.nextSeq, ring.evicted], [0, 6, 0])
    }
}
