import JSONInput
import XCTest

final class ClosestMatchTests: XCTestCase {
    func testEditDistance() {
        let cases: [(String, String, Int)] = [
            ("", "", 0), ("", "abc", 3), ("abc", "", 3), ("port", "port", 0), ("prot", "port", 1),  // swap counts one
            ("pot", "port", 1), ("portt", "port", 1), ("part", "port", 1), ("kitten", "sitting", 3),
            ("Port", "port", 1),  // case-sensitive here; `find` lowers both
            ("ca", "abc", 3),  // optimal string alignment, not full Damerau
            ("héllo", "hello", 1),
        ]
        for (a, b, expected) in cases {
            XCTAssertEqual(ClosestMatch.editDistance(a, b), expected, "\(a) / \(b)")
            XCTAssertEqual(ClosestMatch.editDistance(b, a), expected, "\(b) / \(a)")
        }
    }

    func testFind() {
        let keys = ["host", "port", "listen", "environment", "maxConcurrentStreams"]
        let cases: [(String, String?)] = [
            ("prot", "port"), ("PORT", "port"), ("hots", "host"), ("enviroment", "environment"),
            ("maxConcurentStream", "maxConcurrentStreams"), ("xyz", nil), ("p", nil),
            ("lisetn", "listen"), ("ab", nil),
        ]
        for (input, expected) in cases {
            XCTAssertEqual(ClosestMatch.find(input, among: keys), expected, input)
        }
        // Command-line flags and enum values (the rows of the old JSONSupport copy).
        let flags = ["--listen", "--log-level", "--max-records", "--max-concurrent-streams", "--workers"]
        XCTAssertEqual(ClosestMatch.find("--lisen", among: flags), "--listen")
        XCTAssertEqual(ClosestMatch.find("--max-record", among: flags), "--max-records")
        XCTAssertEqual(ClosestMatch.find("--WORKERS", among: flags), "--workers")
        XCTAssertNil(ClosestMatch.find("--port", among: flags))
        XCTAssertNil(ClosestMatch.find("--max", among: flags))
        XCTAssertEqual(ClosestMatch.find("opne", among: ["open", "closed"]), "open")
        XCTAssertNil(ClosestMatch.find("x", among: ["open", "closed"]))
        XCTAssertEqual(ClosestMatch.editDistance("maxRecord", "maxRecords"), 1)
        // The budget: one edit per three characters, at least one, at most three.
        XCTAssertEqual(ClosestMatch.find("ab", among: ["ax"]), "ax")
        XCTAssertNil(ClosestMatch.find("abcde", among: ["axcxe"]))
        XCTAssertEqual(ClosestMatch.find("abcdef", among: ["axcxef"]), "axcxef")
        XCTAssertNil(ClosestMatch.find("abcdefghijklmnop", among: ["abcdefghijklxxxx"]))
        // An explicit budget (the command line's), and the first of equally near candidates.
        XCTAssertEqual(ClosestMatch.find("--hepl", among: ["--help"], maxDistance: 2), "--help")
        XCTAssertNil(ClosestMatch.find("--xx", among: ["--help"], maxDistance: 2))
        XCTAssertEqual(ClosestMatch.find("bat", among: ["cat", "hat"]), "cat")
    }

    func testHint() {
        XCTAssertEqual(ClosestMatch.hint("prot", among: ["port"]), " (did you mean \"port\"?)")
        XCTAssertEqual(
            ClosestMatch.hint("--hepl", among: ["--help"], quote: { "'\($0)'" }), " (did you mean '--help'?)")
        XCTAssertEqual(ClosestMatch.hint("zzz", among: ["port"]), "")
    }
}
