import Broadcast
import XCTest

/// `apns-request-id` values (docs/broadcast.md §A3).
final class RequestIDTests: XCTestCase {
    func testCanonicalForms() {
        let rows: [(String, Bool)] = [
            ("123e4567-e89b-12d3-a456-426614174000", true),
            ("123E4567-E89B-12D3-A456-426614174000", true),
            ("123e4567e89b12d3a456426614174000", false),
            ("123e4567-e89b-12d3-a456-42661417400", false),
            ("123e4567-e89b-12d3-a456-4266141740000", false),
            ("123e4567-e89b-12d3-a456_426614174000", false),
            ("g23e4567-e89b-12d3-a456-426614174000", false),
            ("", false),
        ]
        for (text, valid) in rows {
            XCTAssertEqual(RequestID.isCanonical(text), valid, text)
        }
    }
}
