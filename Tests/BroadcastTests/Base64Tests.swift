import XCTest

@testable import Broadcast

/// What a well-formed `apns-channel-id` is (docs/broadcast.md §A3): one row per case.
final class Base64Tests: XCTestCase {
    func testChannelIDForms() {
        let rows: [(String, Bool)] = [
            ("dHN0LXNyY2gtY2hubA==", true),  // Apple's example
            ("AAAA", true),
            ("ab+/", true),
            ("", false),
            ("dHN0LXNyY2gtY2hubA", false),  // padding missing
            ("dHN0 LXNy", false),
            ("not base64!", false),
            ("dHN0-XNy", false),  // base64url's alphabet
            ("A===", false),  // not a whole byte
            ("====", false),  // padding only
            (String(repeating: "A", count: 128), true),
            (String(repeating: "A", count: 132), false),  // too long
        ]
        for (text, valid) in rows {
            XCTAssertEqual(Base64.isChannelID(text), valid, text)
        }
    }

    func testEncodeIsStandardPaddedBase64() {
        XCTAssertEqual(Base64.encode(Array("tst-srch-chnl".utf8)), "dHN0LXNyY2gtY2hubA==")
    }
}
