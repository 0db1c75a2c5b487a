import XCTest

@testable import APNsCore

/// `PayloadScratch`: a buffer lent to yajl for every parse of a connection, large enough that an
/// ordinary body's parse takes nothing from `malloc` (the stack buffer alone sends yajl's
/// 2,048-byte lexer buffer there), reused from parse to parse, and giving the same answers.
final class PayloadScratchTests: XCTestCase {
    /// An ordinary body parses entirely within the scratch buffer, parse after parse, on one
    /// handle.
    func testAnOrdinaryParseStaysInTheScratchBuffer() {
        let scratch = PayloadScratch()
        XCTAssertEqual(scratch.buffer.count, PayloadScratch.bytes)
        XCTAssertEqual(Int(bitPattern: scratch.buffer.baseAddress!) % ScannerArena.header, 0)
        for body in [#"{"aps":{"alert":"hello 1"},"n":1}"#, #"{"aps":{"alert":{"title":"T"},"badge":2},"k":[1,[2]]}"#] {
            for _ in 0..<3 {
                var state = PayloadScanner.ScanState()
                let ok = Array(body.utf8).withUnsafeBufferPointer {
                    PayloadScanner.parse($0.baseAddress!, $0.count, state: &state, scratch: scratch)
                }
                XCTAssertTrue(ok, body)
                // yajl's 2,048-byte lexer buffer included (a 1,024-byte buffer sends it to malloc:
                // ScannerArenaTests).
                XCTAssertEqual(scratch.arena.pointee.overflows, 0, "nothing from malloc: \(body)")
                XCTAssertEqual(state.topLevel, .dictionary)
            }
        }
        XCTAssertEqual(scratch.handlesMade, 1, "one handle for every body")
    }

    /// A refused body frees the handle, and the next parse starts on a new one; several
    /// top-level values, which a reused handle reads, are left to Foundation.
    func testARefusedBodyEndsTheHandle() {
        let scratch = PayloadScratch()
        func facts(_ body: String) -> PayloadFacts? {
            Array(body.utf8).withUnsafeBufferPointer { PayloadScanner.facts(of: $0, scratch: scratch) }
        }
        XCTAssertNotNil(facts(#"{"aps":{}}"#))
        XCTAssertNil(facts(#"{"aps":"#), "truncated")
        XCTAssertNotNil(facts(#"{"aps":{"alert":"x"}}"#))
        XCTAssertEqual(scratch.handlesMade, 2)
        XCTAssertNil(facts("{} {}"), "two values: Foundation decides (and refuses)")
        XCTAssertNil(facts("{} x"))
        XCTAssertNil(facts("  "))
        XCTAssertNil(facts("5"))
        XCTAssertEqual(facts(#"{"aps":{"badge":1}}"#)?.badge, .number)
        if case .invalid = PayloadInspector.inspect(Array("{} {}".utf8), scratch: scratch) {
        } else {
            XCTFail("two top-level values are not a JSON object")
        }
    }

    /// With and without a scratch buffer, the same outcome; bodies that outgrow it still parse,
    /// and bodies the scanner leaves to Foundation still get Foundation's answer.
    func testTheOutcomeIsTheSameWithAScratchBuffer() {
        let scratch = PayloadScratch()
        let bodies = [
            #"{"aps":{"alert":"hello"}}"#,
            #"{"aps":{"content-available":1}}"#,
            #"{"aps":{"alert":"x","custom-key":1}}"#,
            "{\"aps\":{\"alert\":\"" + String(repeating: "\\n", count: 3000) + "\"}}",
            "{\"k\":" + String(repeating: "[", count: 60) + String(repeating: "]", count: 60) + "}",
            #"[1,2]"#,
            #"{"aps":"#,
            "{\"aps\":{\"alert\":\"\u{0B}\"}}",
        ]
        for body in bodies {
            let bytes = Array(body.utf8)
            let expected = PayloadInspector.inspect(bytes)
            for _ in 0..<2 {
                switch (expected, PayloadInspector.inspect(bytes, scratch: scratch)) {
                case (.object(let a), .object(let b)): XCTAssertEqual(a, b, body)
                case (.invalid(let a), .invalid(let b)): XCTAssertEqual(a, b, body)
                case (let a, let b): XCTFail("\(body): \(a) without the scratch buffer, \(b) with it")
                }
            }
        }
    }
}
