import APNsCore
import Foundation
import XCTest

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
