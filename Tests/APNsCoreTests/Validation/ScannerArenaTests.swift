import XCTest

@testable import APNsCore

/// `ScannerArena`: yajl's memory for one parse, from a lent buffer, with `malloc` beyond it.
final class ScannerArenaTests: XCTestCase {
    private func withArena(bytes: Int = 256, _ body: (inout ScannerArena) -> Void) {
        withUnsafeTemporaryAllocation(byteCount: bytes, alignment: ScannerArena.header) { memory in
            var arena = ScannerArena(memory)
            body(&arena)
        }
    }

    func testBlocksComeFromTheBufferAlignedAndApart() {
        withArena { arena in
            let a = arena.allocate(10)!, b = arena.allocate(20)!
            XCTAssertTrue(arena.owns(a) && arena.owns(b))
            XCTAssertEqual(Int(bitPattern: a) % ScannerArena.header, 0)
            XCTAssertEqual(Int(bitPattern: b) % ScannerArena.header, 0)
            XCTAssertGreaterThanOrEqual(b - a, 16)
            XCTAssertEqual(arena.used, 16 + 16 + 16 + 32)
            XCTAssertEqual(arena.overflows, 0)
        }
    }

    func testWhatDoesNotFitGoesToMallocAndIsFreedThere() {
        withArena(bytes: 64) { arena in
            let big = arena.allocate(100)!
            XCTAssertFalse(arena.owns(big))
            XCTAssertEqual(arena.overflows, 1)
            big.storeBytes(of: 7, as: Int.self)
            let grown = arena.reallocate(big, 4000)!
            XCTAssertFalse(arena.owns(grown))
            XCTAssertEqual(grown.load(as: Int.self), 7)
            arena.free(grown)  // malloc's free: no crash, the arena untouched
            XCTAssertEqual(arena.used, 0)
        }
    }

    func testReallocateKeepsTheBytesInPlaceOrMoved() {
        withArena { arena in
            let last = arena.allocate(8)!
            last.storeBytes(of: 0x1122_3344, as: Int.self)
            XCTAssertEqual(arena.reallocate(last, 40), last, "the last block grows in place")
            XCTAssertEqual(arena.used, 16 + 48)
            let other = arena.allocate(8)!
            let moved = arena.reallocate(last, 64)!
            XCTAssertNotEqual(moved, last, "a block that is not the last moves")
            XCTAssertEqual(moved.load(as: Int.self), 0x1122_3344)
            XCTAssertTrue(arena.owns(moved) && arena.owns(other))
            let outside = arena.reallocate(moved, 1000)!
            XCTAssertFalse(arena.owns(outside))
            XCTAssertEqual(outside.load(as: Int.self), 0x1122_3344)
            arena.free(outside)
        }
    }

    func testFreeingTheLastBlockGivesItsBytesBack() {
        withArena { arena in
            _ = arena.allocate(8)
            let second = arena.allocate(8)!
            arena.free(second)
            XCTAssertEqual(arena.used, 32)
            arena.free(nil)
        }
    }

    /// yajl's own structures come from the arena and only its 2,048-byte buffer from `malloc`;
    /// escaped strings and nesting that outgrow that still parse.
    func testTheScannerParsesFromTheArenaAndBeyondIt() {
        let small = Array(#"{"aps":{"alert":"hello"}}"#.utf8)
        let large = Array(
            ("{\"aps\":{\"alert\":\"" + String(repeating: "\\n", count: 3000) + "\"},\"k\":"
                + String(repeating: "[", count: 60) + String(repeating: "]", count: 60) + "}").utf8)
        for body in [small, large] {
            var state = PayloadScanner.ScanState()
            withUnsafeTemporaryAllocation(byteCount: ScannerArena.bytes, alignment: ScannerArena.header) { memory in
                var arena = ScannerArena(memory)
                let ok = body.withUnsafeBufferPointer {
                    PayloadScanner.parse($0.baseAddress!, $0.count, state: &state, arena: &arena)
                }
                XCTAssertTrue(ok, "\(body.count) bytes")
                XCTAssertGreaterThan(arena.used, 0)
                if body == small { XCTAssertEqual(arena.overflows, 1, "only the 2,048-byte buffer") }
            }
            XCTAssertEqual(state.topLevel, .dictionary)
            XCTAssertEqual(state.facts.alert, .string)
        }
    }
}
