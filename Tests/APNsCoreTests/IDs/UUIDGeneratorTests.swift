import Foundation
import XCTest

@testable import APNsCore

final class UUIDGeneratorTests: XCTestCase {
    func testMakesDistinctVersion4UUIDsInTheAskedCase() {
        let generator = UUIDGenerator()
        var seen = Set<String>()
        for index in 0..<10_000 {
            let uppercase = index % 2 == 0
            let text = generator.next(uppercase: uppercase)
            let parsed = UUID(uuidString: text)
            XCTAssertNotNil(parsed, text)
            XCTAssertEqual(text, uppercase ? text.uppercased() : text.lowercased())
            let characters = Array(text)
            XCTAssertEqual(characters[14], "4", "version nibble: \(text)")
            XCTAssertTrue("89abAB".contains(characters[19]), "variant: \(text)")
            seen.insert(text.lowercased())
        }
        XCTAssertEqual(seen.count, 10_000)
    }
}

/// The layout of `UUIDGenerator.format`: 8-4-4-4-12 digits, most significant first.
final class UUIDFormatTests: XCTestCase {
    func testFormatsBothWordsInOrder() {
        let high: UInt64 = 0x0123_4567_89AB_CDEF
        let low: UInt64 = 0xFEDC_BA98_7654_3210
        XCTAssertEqual(
            UUIDGenerator.format(high: high, low: low, uppercase: true), "01234567-89AB-CDEF-FEDC-BA9876543210")
        XCTAssertEqual(
            UUIDGenerator.format(high: high, low: low, uppercase: false), "01234567-89ab-cdef-fedc-ba9876543210")
        XCTAssertEqual(
            UUIDGenerator.format(high: 0, low: .max, uppercase: true), "00000000-0000-0000-FFFF-FFFFFFFFFFFF")
    }
}

extension UUIDFormatTests {
    func testEveryNibbleValueInBothCases() {
        for nibble in UInt64(0)..<16 {
            var word: UInt64 = 0
            for _ in 0..<16 { word = word << 4 | nibble }
            let digit = String(nibble, radix: 16)
            let group = { (count: Int) in String(repeating: digit, count: count) }
            let expected = [8, 4, 4, 4, 12].map(group).joined(separator: "-")
            XCTAssertEqual(UUIDGenerator.format(high: word, low: word, uppercase: false), expected)
            XCTAssertEqual(UUIDGenerator.format(high: word, low: word, uppercase: true), expected.uppercased())
        }
    }
}
