import XCTest

@testable import HTTP2Transport

/// `StreamTable` finds every open stream, also when two open streams share a slot; `SpareStreams`
/// hands back objects reset for a new stream and stays within its bounds.
final class StreamTableTests: XCTestCase {
    func testEveryOpenStreamIsFoundAlsoWhenSlotsCollide() {
        let table = StreamTable()
        let wrap = Int32(2 * StreamTable.slotCount)  // ids this far apart share a slot
        // 1,200 odd ids in a row (more than the slots), then ones that collide with open ones.
        var open = Array(stride(from: Int32(1), to: 2401, by: 2)) + [1 + 5 * wrap, 3 + 5 * wrap]
        for id in open { table.insert(StreamState(id: id)) }
        XCTAssertEqual(table.count, open.count)
        for id in open { XCTAssertEqual(table.stream(id)?.id, id, "stream \(id)") }
        XCTAssertNil(table.stream(2401))
        XCTAssertNil(table.stream(7 + 5 * wrap), "its slot holds another stream")

        // Remove the slot holders: the streams that overflowed are still found.
        for id in [Int32(1), 3, 1 + wrap, 3 + wrap] {
            XCTAssertEqual(table.remove(id)?.id, id)
            open.removeAll { $0 == id }
        }
        XCTAssertNil(table.remove(1), "already removed")
        for id in open { XCTAssertEqual(table.withStream(id) { $0.id }, id, "stream \(id)") }
        XCTAssertEqual(table.count, open.count)

        // A freed slot takes the next stream that maps to it.
        let reused = 1 + 9 * wrap
        table.insert(StreamState(id: reused))
        XCTAssertEqual(table.stream(reused)?.id, reused)
        XCTAssertEqual(table.stream(1 + 5 * wrap)?.id, 1 + 5 * wrap)

        // Inserting an id that is open replaces the stream, without counting twice.
        let replacement = StreamState(id: 5)
        table.insert(replacement)
        XCTAssertTrue(table.stream(5) === replacement)
        XCTAssertEqual(table.count, open.count + 1)

        table.removeAll()
        XCTAssertTrue(table.isEmpty)
        XCTAssertNil(table.stream(5))
    }

    func testSpareStreamsComeBackResetAndWithinBounds() {
        var spares = SpareStreams()
        XCTAssertNil(spares.take())
        let used = StreamState(id: 7)
        used.method = "POST"
        used.path = "/3/device/ab"
        used.authority = "localhost"
        used.headers = [HeaderField(name: "apns-topic", value: "com.example.app")]
        used.body = Array(repeating: 0x7B, count: 100)
        used.bodyLength = 100
        used.headerListSize = 90
        used.headerListTooLarge = true
        used.fieldCount = 5
        used.responseBody = [1, 2, 3]
        used.responseOffset = 2
        used.dispatched = true
        spares.give(used)
        XCTAssertEqual(spares.count, 1)
        let again = spares.take()
        XCTAssertTrue(again === used)
        XCTAssertEqual(again?.method, "")
        XCTAssertEqual(again?.path, "")
        XCTAssertNil(again?.authority)
        XCTAssertEqual(again?.headers, [])
        XCTAssertEqual(again?.body, [])
        XCTAssertGreaterThanOrEqual(again?.body.capacity ?? 0, 100, "its body storage is kept")
        XCTAssertEqual(again?.bodyLength, 0)
        XCTAssertEqual(again?.headerListSize, 0)
        XCTAssertEqual(again?.headerListTooLarge, false)
        XCTAssertEqual(again?.fieldCount, 0)
        XCTAssertEqual(again?.responseBody, [])
        XCTAssertEqual(again?.responseOffset, 0)
        XCTAssertEqual(again?.dispatched, false)
        XCTAssertEqual(spares.count, 0)
        XCTAssertEqual(spares.bodyBytes, 0)

        // 200 closed streams with 4 KB bodies: 128 kept, 64 KB of bodies at most.
        for id in 0..<200 {
            let stream = StreamState(id: Int32(2 * id + 1))
            stream.body = Array(repeating: 0, count: 4096)
            spares.give(stream)
        }
        XCTAssertEqual(spares.count, SpareStreams.maxCount)
        XCTAssertLessThanOrEqual(spares.bodyBytes, SpareStreams.maxBodyBytes)
        XCTAssertGreaterThan(spares.bodyBytes, SpareStreams.maxBodyBytes / 2)
        var kept = 0
        while let stream = spares.take() { kept += stream.body.capacity }
        XCTAssertEqual(spares.bodyBytes, 0)
        XCTAssertLessThanOrEqual(kept, SpareStreams.maxBodyBytes)

        // A body over the per-object limit is not kept at all.
        let large = StreamState(id: 1)
        large.body = Array(repeating: 0, count: StreamState.keptBodyCapacity + 1)
        spares.give(large)
        XCTAssertEqual(spares.take()?.body.capacity, 0)
        spares.give(StreamState(id: 3))
        spares.removeAll()
        XCTAssertEqual(spares.count, 0)
    }

    /// The list holds its objects through unmanaged references: dropping it (a connection that
    /// goes without `removeAll`) must still let them go.
    func testSpareStreamsLetTheirObjectsGoWhenDropped() {
        weak var kept: StreamState?
        weak var taken: StreamState?
        do {
            var spares = SpareStreams()
            let first = StreamState(id: 1)
            let second = StreamState(id: 3)
            kept = first
            taken = second
            spares.give(first)
            spares.give(second)
            XCTAssertTrue(spares.take() === second)
            XCTAssertEqual(spares.count, 1)
        }
        XCTAssertNil(kept, "a kept object outlived its list")
        XCTAssertNil(taken, "a taken object was still referenced by the list")
    }
}
