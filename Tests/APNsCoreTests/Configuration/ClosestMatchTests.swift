import XCTest
@testable import APNsCore

final class ClosestMatchTests: XCTestCase {
    func testEditDistance() {
        let rows: [(String, String, Int)] = [
            ("", "", 0), ("", "abc", 3), ("abc", "", 3), ("abc", "abc", 0),
            ("hots", "host", 1),           // adjacent swap counts once
            ("maxRecord", "maxRecords", 1), ("kitten", "sitting", 3), ("ca", "abc", 3),
        ]
        for (a, b, expected) in rows {
            XCTAssertEqual(ClosestMatch.editDistance(a, b), expected, "\(a) → \(b)")
        }
    }

    func testFindsOnlyLikelyTypos() {
        let flags = ["--listen", "--log-level", "--max-records", "--max-concurrent-streams", "--workers"]
        XCTAssertEqual(ClosestMatch.find("--lisen", among: flags), "--listen")
        XCTAssertEqual(ClosestMatch.find("--max-record", among: flags), "--max-records")
        XCTAssertEqual(ClosestMatch.find("--WORKERS", among: flags), "--workers")
        XCTAssertNil(ClosestMatch.find("--port", among: flags))
        XCTAssertNil(ClosestMatch.find("--max", among: flags))
        XCTAssertEqual(ClosestMatch.find("opne", among: ["open", "closed"]), "open")
        XCTAssertNil(ClosestMatch.find("x", among: ["open", "closed"]))
    }
}
