import XCTest

@testable import APNsCore
@testable import JSONSupport
@testable import Recording
@testable import TestFixtures

final class DeliveryStoreTests: XCTestCase {
    private typealias F = StoreFixtures

    func testAppendAssignsSequenceNumbersFromOne() {
        let store = DeliveryStore(capacity: 10)
        XCTAssertEqual(store.lastSeq, 0)
        XCTAssertEqual(store.append(F.record()), 1)
        XCTAssertEqual(store.append(F.record()), 2)
        XCTAssertEqual(store.lastSeq, 2)
        XCTAssertEqual(store.record(seq: 2)?.seq, 2)
        XCTAssertNil(store.record(seq: 0))
        XCTAssertNil(store.record(seq: 3))
    }

    func testRingEvictsOldestAndCountsEvictions() {
        let store = DeliveryStore(capacity: 3)
        for i in 1...5 { store.append(F.record(topic: "t\(i)")) }
        let result = store.query(DeliveryFilter())
        XCTAssertEqual(result.deliveries.map(\.seq), [3, 4, 5])
        XCTAssertEqual(result.deliveries.map(\.verdict.topic), ["t3", "t4", "t5"])
        XCTAssertEqual(result.evicted, 2)
        XCTAssertEqual(result.lastSeq, 5)
        XCTAssertNil(store.record(seq: 2))
        XCTAssertEqual(store.record(seq: 3)?.verdict.topic, "t3")
        XCTAssertEqual(store.record(seq: 5)?.verdict.topic, "t5")
        XCTAssertEqual(store.stats().records, 3)
    }

    /// `cleared` and `evictedTotal` are since start, across clears, so with the records held
    /// they account for every request exactly (`evicted` restarts at each clear).
    func testClearedRecordsAndEvictedTotalAccountForEveryRequest() {
        let store = DeliveryStore(capacity: 3)
        for _ in 1...5 { store.append(F.record()) }  // 2 evicted
        XCTAssertEqual(store.clear(), 3)
        for _ in 1...4 { store.append(F.record()) }  // 1 evicted
        let stats = store.stats()
        XCTAssertEqual(stats.cleared, 3)
        XCTAssertEqual(stats.evicted, 1)
        XCTAssertEqual(stats.evictedTotal, 3)
        XCTAssertEqual(stats.records, 3)
        XCTAssertEqual(stats.cleared + UInt64(stats.records) + stats.evictedTotal, stats.requests)
    }

    func testRingWrapsManyTimesKeepingOrder() {
        let store = DeliveryStore(capacity: 4)
        for _ in 1...23 { store.append(F.record()) }
        XCTAssertEqual(store.query(DeliveryFilter()).deliveries.map(\.seq), [20, 21, 22, 23])
        XCTAssertEqual(store.query(DeliveryFilter(after: 21)).deliveries.map(\.seq), [22, 23])
        XCTAssertEqual(store.stats().evicted, 19)
    }

    func testSeqKeepsIncreasingAcrossClearAndEvictedRestarts() {
        let store = DeliveryStore(capacity: 2)
        for _ in 1...3 { store.append(F.record()) }
        XCTAssertEqual(store.stats().evicted, 1)
        let generation = store.generation
        XCTAssertEqual(store.clear(), 2)
        XCTAssertNotEqual(store.generation, generation, "a clear must wake waiters")
        XCTAssertEqual(store.query(DeliveryFilter()).deliveries.count, 0)
        XCTAssertEqual(store.stats().evicted, 0)
        XCTAssertNil(store.record(seq: 3))
        XCTAssertEqual(store.append(F.record()), 4)
        XCTAssertEqual(store.query(DeliveryFilter()).deliveries.map(\.seq), [4])
        XCTAssertEqual(store.record(seq: 4)?.seq, 4)
    }

    func testStatsCountByStatusAndReasonSinceStart() {
        let store = DeliveryStore(capacity: 2)
        store.append(F.record())
        store.append(F.record(status: 400, reason: .badDeviceToken))
        store.append(F.record(status: 400, reason: .badDeviceToken))
        store.append(F.record(status: 410, reason: .unregistered))
        store.clear()
        store.append(F.record(status: 777))  // outside the array-counted range
        let stats = store.stats()
        XCTAssertEqual(stats.requests, 5)
        XCTAssertEqual(stats.byStatus, [200: 1, 400: 2, 410: 1, 777: 1])
        XCTAssertEqual(stats.byReason, [.badDeviceToken: 2, .unregistered: 1])
        XCTAssertEqual(stats.records, 1)
        XCTAssertEqual(stats.capacity, 2)
    }

    func testEachFilterField() {
        let store = DeliveryStore()
        store.append(F.record(token: "aa11"))  // 1
        store.append(F.record(topic: "com.other"))  // 2
        store.append(F.record(pushTypeSent: nil, pushType: .background))  // 3
        store.append(F.record(status: 400, reason: .badTopic))  // 4
        store.append(F.record(status: 400, reason: .missingTopic))  // 5
        store.append(F.record(apnsID: "ABCDEF00-0000-0000-0000-000000000001"))  // 6
        store.append(F.record(collapseID: "c1"))  // 7
        store.append(F.record(environment: .production))  // 8
        store.append(F.record(pushTypeSent: "bogus", pushType: .alert))  // 9
        func seqs(_ filter: DeliveryFilter) -> [UInt64] { store.query(filter).deliveries.map(\.seq) }
        XCTAssertEqual(seqs(DeliveryFilter(token: "AA11")), [1])
        XCTAssertEqual(seqs(DeliveryFilter(topic: "com.other")), [2])
        XCTAssertEqual(seqs(DeliveryFilter(pushType: "background")), [3])
        XCTAssertEqual(seqs(DeliveryFilter(pushType: "bogus")), [9])
        XCTAssertEqual(seqs(DeliveryFilter(status: 400)), [4, 5])
        XCTAssertEqual(seqs(DeliveryFilter(reason: .missingTopic)), [5])
        XCTAssertEqual(seqs(DeliveryFilter(apnsID: "abcdef00-0000-0000-0000-000000000001")), [6])
        XCTAssertEqual(seqs(DeliveryFilter(collapseID: "c1")), [7])
        XCTAssertEqual(seqs(DeliveryFilter(environment: .production)), [8])
        XCTAssertEqual(seqs(DeliveryFilter(after: 7)), [8, 9])
        XCTAssertEqual(seqs(DeliveryFilter(status: 400, after: 4)), [5])
        XCTAssertEqual(store.count(matching: DeliveryFilter(status: 400)), 2)
        XCTAssertEqual(store.count(matching: DeliveryFilter(after: 100)), 0)
    }

    /// `kind` and `channelId` (docs/broadcast.md §4): by the path and the `apns-channel-id` header.
    func testKindAndChannelIDFilters() throws {
        let store = DeliveryStore()
        func channelRecord(_ path: String, _ channel: String?) -> DeliveryRecord {
            var record = F.record(token: nil)
            record.path = path
            record.headers = channel.map { [HeaderField(name: "apns-channel-id", value: $0)] } ?? []
            return record
        }
        store.append(F.record())  // 1
        store.append(channelRecord("/1/apps/com.x/channels", nil))  // 2, a create
        store.append(channelRecord("/1/apps/com.x/channels", "AAAA"))  // 3
        store.append(channelRecord("/4/broadcasts/apps/com.x", "AAAA"))  // 4
        store.append(channelRecord("/4/broadcasts/apps/com.x", "BBBB"))  // 5
        func seqs(_ filter: DeliveryFilter) -> [UInt64] { store.query(filter).deliveries.map(\.seq) }
        var filter = DeliveryFilter()
        filter.kind = .push
        XCTAssertEqual(seqs(filter), [1])
        filter.kind = .channel
        XCTAssertEqual(seqs(filter), [2, 3])
        filter.kind = .broadcast
        XCTAssertEqual(seqs(filter), [4, 5])
        filter.channelID = "AAAA"
        XCTAssertEqual(seqs(filter), [4])
        filter.kind = nil
        XCTAssertEqual(seqs(filter), [3, 4])
        XCTAssertEqual(store.query(filter).deliveries.map { $0.channelID }, ["AAAA", "AAAA"])
        // Decoded and compact matching agree.
        for seq in 1...5 {
            let record = try XCTUnwrap(store.record(seq: UInt64(seq)))
            XCTAssertEqual(filter.matches(record), [3, 4].contains(seq), "\(seq)")
        }
        // The create (2) named no channel; told its seq (`channelCreateSeq`), the filter takes it
        // as a record of the channel it made, with the channel's other records, of any kind.
        filter.channelCreateSeq = 2
        XCTAssertEqual(seqs(filter), [2, 3, 4])
        filter.kind = .channel
        XCTAssertEqual(seqs(filter), [2, 3])
        filter.kind = nil
        XCTAssertEqual(store.count(matching: filter), 3)
        for seq in 1...5 {
            let record = try XCTUnwrap(store.record(seq: UInt64(seq)))
            XCTAssertEqual(filter.matches(record), [2, 3, 4].contains(seq), "\(seq)")
        }
        filter.channelID = "BBBB"  // the create made AAAA, not BBBB: the seq goes with the ID it was looked up for
        filter.channelCreateSeq = nil
        XCTAssertEqual(seqs(filter), [5])
        XCTAssertEqual(try DeliveryFilter(query: ["kind": "broadcast", "channelId": "AAAA"]).kind, .broadcast)
        XCTAssertEqual(try DeliveryFilter(query: ["channelId": "AAAA"]).channelID, "AAAA")
        XCTAssertThrowsError(try DeliveryFilter(query: ["kind": "pushes"])) { error in
            XCTAssertEqual(
                (error as? ControlError)?.message, "kind must be one of push, channel, broadcast, got 'pushes'")
        }
    }

    /// `listener` and `protocol` (docs/legacy-binary.md §8): by the record's listener name and
    /// the binary gateway's command header; compact and decoded matching agree.
    func testListenerAndProtocolFilters() throws {
        let store = DeliveryStore()
        var binary = F.record()
        binary.listener = "binary"
        binary.headers.append(HeaderField(name: DeliveryRecord.binaryCommandHeader, value: "1"))
        store.append(F.record())  // 1, http2 on "sandbox"
        store.append(binary)  // 2
        var other = F.record()
        other.listener = "production"
        store.append(other)  // 3
        func seqs(_ filter: DeliveryFilter) -> [UInt64] { store.query(filter).deliveries.map(\.seq) }
        var filter = DeliveryFilter()
        filter.transportProtocol = .binary
        XCTAssertEqual(seqs(filter), [2])
        filter.transportProtocol = .http2
        XCTAssertEqual(seqs(filter), [1, 3])
        filter.listener = "production"
        XCTAssertEqual(seqs(filter), [3])
        filter.transportProtocol = nil
        filter.listener = "binary"
        XCTAssertEqual(seqs(filter), [2])
        for seq in 1...3 {
            let record = try XCTUnwrap(store.record(seq: UInt64(seq)))
            XCTAssertEqual(filter.matches(record), seq == 2, "\(seq)")
        }
        XCTAssertEqual(store.record(seq: 2)?.transportProtocol, .binary)
        XCTAssertEqual(store.record(seq: 1)?.transportProtocol, .http2)
        let parsed = try DeliveryFilter(query: ["listener": "binary", "protocol": "binary"])
        XCTAssertEqual(parsed.listener, "binary")
        XCTAssertEqual(parsed.transportProtocol, .binary)
        XCTAssertThrowsError(try DeliveryFilter(query: ["protocol": "h2"])) { error in
            XCTAssertEqual((error as? ControlError)?.message, "protocol must be one of http2, binary, got 'h2'")
        }
    }

    func testLimitReturnsOldestAndSaysMore() {
        let store = DeliveryStore()
        for _ in 1...5 { store.append(F.record()) }
        let page = store.query(DeliveryFilter(), limit: 2)
        XCTAssertEqual(page.deliveries.map(\.seq), [1, 2])
        XCTAssertTrue(page.more)
        let last = store.query(DeliveryFilter(after: 3), limit: 2)
        XCTAssertEqual(last.deliveries.map(\.seq), [4, 5])
        XCTAssertFalse(last.more)
        XCTAssertEqual(store.query(DeliveryFilter(), limit: 0).deliveries.count, 0)
    }

    func testFilterParsesQueryAndNamesBadValues() throws {
        let filter = try DeliveryFilter(query: [
            "token": "AABB", "topic": "t", "pushType": "voip", "status": "410", "reason": "unregistered",
            "apnsId": "ABC", "collapseId": "c", "environment": "Production", "after": "9",
        ])
        XCTAssertEqual(
            filter,
            DeliveryFilter(
                token: "aabb", topic: "t", pushType: "voip", status: 410,
                reason: .unregistered, apnsID: "abc", collapseID: "c",
                environment: .production, after: 9))
        let bad: [(String, String, String)] = [
            ("status", "abc", "status must be an integer"),
            ("status", "99", "status must be between 100 and 599"),
            (
                "status", "0",
                #"status must be between 100 and 599; streams that got no answer (stats' "0") are unanswered=any"#
            ),
            ("reason", "Nope", "reason must be an APNs reason"),
            ("environment", "dev", "environment must be sandbox or production"),
            ("after", "-1", "after must be a non-negative integer"),
            ("topic", "", "topic must not be empty"),
        ]
        for (name, value, message) in bad {
            XCTAssertThrowsError(try DeliveryFilter(query: [name: value]), "\(name)=\(value)") { error in
                let error = error as? ControlError
                XCTAssertEqual(error?.status, 400)
                XCTAssertTrue(error?.message.hasPrefix(message) ?? false, "\(error?.message ?? "nil")")
            }
        }
    }

    /// `unanswered=any` takes every record of a stream that ended with no answer (not a pending
    /// one: its held answer may yet be sent); `unanswered=<cause>` those of one cause;
    /// `unanswered=pending` those whose answer is still held.
    func testUnansweredFilter() throws {
        var closed = F.record(status: 0)
        closed.unanswered = .connectionClosed
        var above = F.record(status: 0)
        above.unanswered = .aboveLastStreamID
        let pending = F.record(status: 0)  // no answer, no cause known yet
        let answered = F.record(status: 200)
        let rows: [(String, [Bool])] = [
            ("any", [true, true, false, false]),
            ("pending", [false, false, true, false]),
            ("connection-closed", [true, false, false, false]),
            ("above-last-stream-id", [false, true, false, false]),
        ]
        for (value, expected) in rows {
            let filter = try DeliveryFilter(query: ["unanswered": value])
            XCTAssertEqual([closed, above, pending, answered].map { filter.matches($0) }, expected, value)
        }
        // The store's compact matcher agrees with `matches` on the decoded records.
        let store = DeliveryStore()
        let seqs = [closed, above, pending, answered].map { store.append(F.record(status: $0.status)) }
        XCTAssertTrue(store.markUnanswered(seq: seqs[0], cause: .connectionClosed))
        XCTAssertTrue(store.markUnanswered(seq: seqs[1], cause: .aboveLastStreamID))
        for (value, expected) in rows {
            let filter = try DeliveryFilter(query: ["unanswered": value])
            let found = Set(store.query(filter).elements.map(\.seq))
            XCTAssertEqual(found, Set(zip(seqs, expected).filter(\.1).map(\.0)), value)
            XCTAssertEqual(store.count(matching: filter), expected.filter { $0 }.count, value)
        }
        XCTAssertThrowsError(try DeliveryFilter(query: ["unanswered": "conection-closed"])) { error in
            XCTAssertEqual(
                (error as? ControlError)?.message,
                "unanswered must be one of any, pending, connection-closed, connection-reset, connection-closed-by-client, "
                    + "above-last-stream-id, stream-reset-by-client, stream-reset-by-server, got 'conection-closed' "
                    + "(did you mean 'connection-closed'?)")
        }
    }

    func testIncrementalCountRestartsAfterClear() {
        let store = DeliveryStore()
        store.append(F.record(status: 400, reason: .badTopic))
        let first = store.countMatching(DeliveryFilter(status: 400), clears: .max, afterSeq: 0)
        XCTAssertEqual(first.count, 1)
        XCTAssertTrue(first.restarted)
        store.append(F.record(status: 400, reason: .badTopic))
        store.append(F.record())
        let next = store.countMatching(DeliveryFilter(status: 400), clears: first.clears, afterSeq: first.lastSeq)
        XCTAssertEqual(next.count, 1, "only records after the last scan are counted")
        XCTAssertFalse(next.restarted)
        store.clear()
        let after = store.countMatching(DeliveryFilter(status: 400), clears: next.clears, afterSeq: next.lastSeq)
        XCTAssertTrue(after.restarted)
        XCTAssertEqual(after.count, 0)
    }

    func testConcurrentAppendsGetDistinctSequenceNumbers() {
        let store = DeliveryStore(capacity: 1000)
        let template = F.record()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<500 { store.append(template) }
        }
        XCTAssertEqual(store.lastSeq, 4000)
        let seqs = store.query(DeliveryFilter()).deliveries.map(\.seq)
        XCTAssertEqual(seqs, Array(3001...4000))
        XCTAssertEqual(store.stats().evicted, 3000)
    }

    func testCapacityBelowOneIsClampedToOne() {
        let store = DeliveryStore(capacity: 0)
        store.append(F.record())
        store.append(F.record())
        XCTAssertEqual(store.capacity, 1)
        XCTAssertEqual(store.query(DeliveryFilter()).deliveries.map(\.seq), [2])
    }
}
