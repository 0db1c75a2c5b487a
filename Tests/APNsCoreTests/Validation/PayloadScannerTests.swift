@testable import APNsCore
import XCTest

/// The byte scanner is only a fast path: whenever it answers, `JSONSerialization` must agree
/// (same facts); whenever it declines, `JSONSerialization` decides.
final class PayloadScannerTests: XCTestCase {
    /// Facts with unknown keys deduped and sorted (the scanner lists them in document order,
    /// repeats included; Foundation in dictionary order).
    func normalized(_ facts: PayloadFacts) -> PayloadFacts {
        var copy = facts
        copy.unknownApsKeys = Array(Set(facts.unknownApsKeys)).sorted()
        return copy
    }

    /// Checks agreement for one body; returns whether the scanner answered.
    @discardableResult
    func assertAgreement(_ body: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> Bool {
        guard !body.isEmpty else { return false }
        let text = String(decoding: body.prefix(120), as: UTF8.self)
        guard let fast = PayloadScanner.scan(body) else { return false }
        switch PayloadInspector.inspectWithFoundation(body) {
        case .object(let slow):
            XCTAssertEqual(normalized(fast), normalized(slow), text, file: file, line: line)
        case .invalid(let message):
            XCTFail("scanner accepted what JSONSerialization refuses (\(message)): \(text)", file: file, line: line)
        }
        return true
    }

    static let accepted: [String] = [
        #"{}"#, #" { } "#, "\t{\n}\r\n",
        #"{"aps":{"alert":"hi","sound":"default","badge":3},"custom":"x"}"#,
        #"{"aps":{"alert":{"title":"T","body":"B","loc-args":["a",1,true,null,{}]}}}"#,
        #"{"aps":{"alert":"caf\u00e9 \"quoted\" \\ \/ \b\f\n\r\t \ud83d\ude00"}}"#.replacingOccurrences(of: "\\ud83d\\ude00", with: "😀"),
        #"{"aps":{"alert":"héllo wörld 日本語 😀"}}"#,
        #"{"aps":{"content-available":1}}"#, #"{"aps":{"content-available":1.0}}"#, #"{"aps":{"content-available":1.000}}"#,
        #"{"aps":{"content-available":0}}"#, #"{"aps":{"content-available":10}}"#, #"{"aps":{"content-available":-1}}"#,
        #"{"aps":{"content-available":0.5}}"#, #"{"aps":{"content-available":true}}"#, #"{"aps":{"content-available":"1"}}"#,
        #"{"aps":{"content-available":-0}}"#, #"{"aps":{"content-available":1,"content-available":0}}"#,
        #"{"aps":{"content-available":0,"content-available":1}}"#,
        #"{"aps":{"alert":5,"alert":"x"}}"#, #"{"aps":{"badge":"1","badge":2}}"#,
        #"{"aps":1}"#, #"{"aps":"x"}"#, #"{"aps":[]}"#, #"{"aps":null}"#, #"{"aps":true}"#,
        #"{"aps":{"alert":"x"},"aps":5}"#, #"{"aps":5,"aps":{"badge":1}}"#,
        #"{"aps":{"foo":1,"bar":2,"foo":3}}"#, #"{"aps":{"aps":{}}}"#, #"{"aps":{"thread-id":"t","url-args":["a"]}}"#,
        #"{"mdm":"3C5E4C6F"}"#, #"{"x":{"aps":{"badge":"no"}}}"#,
        #"{"n":[0,-0,0.5,-12.25,123456789012345678]}"#, #"{"s":"\u0000\u001f\uffff"}"#,
        "{\"deep\":" + String(repeating: "[", count: 60) + String(repeating: "]", count: 60) + "}",
    ]

    func testScannerAnswersForCommonPayloads() {
        for body in Self.accepted {
            XCTAssertTrue(assertAgreement(Array(body.utf8)), "fast path expected: \(body)")
        }
    }

    static let declined: [[UInt8]] = [
        Array(#"[]"#.utf8), Array(#"[{"aps":{}}]"#.utf8), Array(#""x""#.utf8), Array("1".utf8), Array("null".utf8),
        [0xEF, 0xBB, 0xBF] + Array("{}".utf8),
        Array(#"{"a":1,}"#.utf8), Array(#"{"a":[1,]}"#.utf8), Array(#"{"a":01}"#.utf8), Array(#"{"a":1.}"#.utf8),
        Array(#"{"a":.5}"#.utf8), Array(#"{"a":+1}"#.utf8), Array(#"{"a":1e2}"#.utf8), Array(#"{"a":1E400}"#.utf8),
        Array(#"{"a":123456789012345678901234}"#.utf8), Array("{\"a\":\"x\ty\"}".utf8), Array(#"{"a":"\x"}"#.utf8),
        Array(#"{"a":"\ud800"}"#.utf8), Array(#"{"a":"\ud83d\ude00"}"#.utf8), Array(#"{"a":"\u12"}"#.utf8),
        Array(#"{"a":tru}"#.utf8), Array(#"{"a":nul}"#.utf8), Array(#"{"a" 1}"#.utf8), Array(#"{"a":1 "b":2}"#.utf8),
        Array(#"{a:1}"#.utf8), Array(#"{"a":1}}"#.utf8), Array(#"{"a":1} x"#.utf8), Array(#"{"a":"#.utf8),
        Array(#"{"aps":{"alert":"x""#.utf8), Array(#"{"a\"ps":{}}"#.utf8), Array(#"{"\u0061ps":{"badge":1},"aps":{"badge":"1"}}"#.utf8), Array(#"{"aps":{"b\u0061dge":"x"}}"#.utf8),
        Array("{\"a\":\"".utf8) + [0xFF] + Array("\"}".utf8),
        Array("{\"a\":\"".utf8) + [0xC0, 0x80] + Array("\"}".utf8),
        Array("{\"a\":\"".utf8) + [0xED, 0xA0, 0x80] + Array("\"}".utf8),
        Array("{\"a\":\"".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array("\"}".utf8),
        Array("{\"a\":\"".utf8) + [0xE2, 0x82] + Array("\"}".utf8),
        Array("{\"a\":\u{a0}1}".utf8),
        Array(("{\"deep\":" + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}").utf8),
    ]

    func testScannerDeclinesWhatFoundationMustJudge() {
        for body in Self.declined {
            XCTAssertNil(PayloadScanner.scan(body), String(decoding: body, as: UTF8.self))
        }
    }

    /// Random valid payloads (mostly answered by the scanner) and random byte mutations of them
    /// (mostly declined): wherever the scanner answers, Foundation agrees.
    func testDifferentialFuzz() {
        var rng = SplitMix64(seed: 0x5EED_A9A5)
        var answered = 0, generated = 0
        for _ in 0..<3000 {
            let body = Array(RandomPayload.object(&rng).utf8)
            generated += 1
            if assertAgreement(body) { answered += 1 }
            for _ in 0..<4 {
                assertAgreement(RandomPayload.mutate(body, &rng))
            }
        }
        XCTAssertGreaterThan(answered, generated * 9 / 10, "the fast path handles ordinary payloads")
    }
}

/// Deterministic PRNG so fuzz failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Generators of push-like JSON.
enum RandomPayload {
    static let apsKeys = ["alert", "badge", "sound", "content-available", "thread-id", "category", "mutable-content",
                          "custom", "aps", "x-y", "é"]
    static let scalars = ["1", "0", "1.0", "-1", "2.5", "true", "false", "null", "\"s\"", "\"\\n\\u00e9\"", "\"日本\"",
                          "\"😀\"", "[]", "{}", "[1,\"a\",{\"k\":null}]", "{\"title\":\"t\",\"body\":\"b\"}"]

    static func object<R: RandomNumberGenerator>(_ rng: inout R) -> String {
        var members: [String] = []
        if Int.random(in: 0..<10, using: &rng) < 9 {
            var aps: [String] = []
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                aps.append("\"\(apsKeys.randomElement(using: &rng)!)\":\(scalars.randomElement(using: &rng)!)")
            }
            let apsValue = Int.random(in: 0..<10, using: &rng) < 9 ? "{\(aps.joined(separator: ","))}"
                                                                    : scalars.randomElement(using: &rng)!
            members.append("\"aps\":\(apsValue)")
        }
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            members.append("\"k\(Int.random(in: 0...9, using: &rng))\":\(scalars.randomElement(using: &rng)!)")
        }
        members.shuffle(using: &rng)
        let space = [" ", "", "\n", "\t"].randomElement(using: &rng)!
        return "{" + space + members.joined(separator: "," + space) + "}"
    }

    static let alphabet: [UInt8] = Array("{}[]\":,\\ 01-.eEtfnaplrsux".utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xE2, 0xED, 0xF4, 0xFF]

    static func mutate<R: RandomNumberGenerator>(_ body: [UInt8], _ rng: inout R) -> [UInt8] {
        var bytes = body
        guard !bytes.isEmpty else { return bytes }
        let at = Int.random(in: 0..<bytes.count, using: &rng)
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: bytes[at] = alphabet.randomElement(using: &rng)!
        case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: at)
        case 2: bytes.remove(at: at)
        default: bytes.removeLast(bytes.count - at)
        }
        return bytes
    }
}
