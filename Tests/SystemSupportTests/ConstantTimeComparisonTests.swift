import XCTest

@testable import SystemSupport

final class ConstantTimeComparisonTests: XCTestCase {
    func testEqualOnlyForTheSameBytes() {
        let secret = Array("s3cret-token".utf8)
        XCTAssertTrue(ConstantTimeComparison.equal(Array("s3cret-token".utf8), secret))
        XCTAssertFalse(ConstantTimeComparison.equal(Array("s3cret-tokeN".utf8), secret))
        XCTAssertFalse(ConstantTimeComparison.equal(Array("s3cret".utf8), secret), "a prefix")
        XCTAssertFalse(ConstantTimeComparison.equal(Array("s3cret-token-and-more".utf8), secret), "longer")
        XCTAssertFalse(ConstantTimeComparison.equal([], secret))
        XCTAssertTrue(ConstantTimeComparison.equal([], []))
    }
}
