import XCTest

@testable import APNsCore

/// `SimpleJSONScanner` must leave `ScanState` exactly as yajl's events do whenever it accepts a
/// body, and must give up on every body outside its subset.
final class SimpleJSONScannerTests: XCTestCase {
    /// The state each reader leaves: nil when it gives up (or yajl refuses).
    private func simple(_ body: [UInt8]) -> PayloadScanner.ScanState? {
        var state = PayloadScanner.ScanState()
        return body.withUnsafeBufferPointer { SimpleJSONScanner.scan($0, into: &state) } ? state : nil
    }

    private func yajl(_ body: [UInt8]) -> PayloadScanner.ScanState? {
        var state = PayloadScanner.ScanState()
        let ok = withUnsafeTemporaryAllocation(byteCount: ScannerArena.bytes, alignment: ScannerArena.header) {
            memory -> Bool in
            var arena = ScannerArena(memory)
            return body.withUnsafeBufferPointer {
                PayloadScanner.parse($0.baseAddress!, $0.count, state: &state, arena: &arena)
            }
        }
        return ok ? state : nil
    }

    private func assertSameAsYajl(_ body: [UInt8], _ label: String, file: StaticString = #filePath, line: UInt = #line)
        -> Bool
    {
        guard let fast = simple(body) else { return false }
        guard let slow = yajl(body) else {
            XCTFail("\(label): accepted, but yajl refuses it", file: file, line: line)
            return true
        }
        XCTAssertEqual(fast.facts, slow.facts, label, file: file, line: line)
        XCTAssertEqual(fast.topLevel, slow.topLevel, label, file: file, line: line)
        XCTAssertEqual(fast.undecided, slow.undecided, label, file: file, line: line)
        return true
    }

    func testOrdinaryBodiesAreSimple() {
        let bodies = [
            #"{"aps":{"alert":"hello"}}"#,
            #"{"aps":{"alert":"hello 12"},"n":12}"#,
            #" { "aps" : { "alert" : { "title" : "T", "body" : "B" }, "badge" : 3, "sound" : "default" } } "#,
            "{\"aps\":{\"content-available\":1},\r\n\t\"k\":[1,2.5,-0,-300,true,false,null,[],{}]}",
            #"{"aps":{"alert":"a","bogus":1,"bogus":2,"thread-id":"t"},"aps":{"badge":1.00}}"#,
            #"[1,2]"#, #""text""#, "7", "{}",
        ]
        for body in bodies {
            XCTAssertTrue(assertSameAsYajl(Array(body.utf8), body), "\(body) is simple")
        }
    }

    func testBodiesOutsideTheSubsetAreLeftToYajl() {
        let bodies = [
            #"{"a":"\n"}"#, #"{"a\"":1}"#, #"{"a":"é"}"#, "{\"a\":1\u{0C}}", "{\"a\":\"\u{01}\"}",
            #"{"a":1e3}"#, #"{"a":1E3}"#, #"{"a":1234567890123456}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":.5}"#,
            #"{"a":-}"#, #"{"a":+1}"#, #"{"a":tru}"#, #"{"a":truex}"#, #"{"a":nul}"#, #"{"a":1,}"#, #"[1,]"#,
            #"{"a" 1}"#, #"{"a":1"#, #"{"a":1}}"#, #"{"a":1} x"#, #"{1:2}"#, "", " ", "\u{FEFF}{}",
            String(repeating: "[", count: 64) + String(repeating: "]", count: 64),
        ]
        for body in bodies {
            XCTAssertNil(simple(Array(body.utf8)), body.debugDescription)
        }
        let deepest = String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
        XCTAssertTrue(assertSameAsYajl(Array(deepest.utf8), "63 levels"))
    }

    /// 20,000 random mutations of a simple body: whatever is accepted, yajl reads the same way.
    func testRandomMutationsAreReadAsYajlReadsThem() {
        let seed = Array(
            #"{"aps":{"alert":{"title":"T","body":"B"},"badge":3,"sound":"d","content-available":1,"x-y":[]},"k":[1,2.5,-300,true,false,null,"x"]}"#
                .utf8)
        let alphabet = Array(#"{}[]:," 0123456789abcdef.eE+-truefalsenul"#.utf8) + [0x09, 0x0A, 0x0D, 0x0B, 0x80]
        var random: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            return random
        }
        var accepted = 0
        for round in 0..<20_000 {
            var body = seed
            for _ in 0..<(1 + Int(next() % 4)) {
                let index = Int(next() % UInt64(body.count))
                let byte = alphabet[Int(next() % UInt64(alphabet.count))]
                switch next() % 3 {
                case 0: body[index] = byte
                case 1: body.insert(byte, at: index)
                default: if body.count > 1 { body.remove(at: index) }
                }
            }
            if assertSameAsYajl(body, "mutation \(round): \(String(decoding: body, as: UTF8.self).debugDescription)") {
                accepted += 1
            }
        }
        XCTAssertGreaterThan(accepted, 1_000, "too few bodies accepted for the test to mean anything")
    }
}
