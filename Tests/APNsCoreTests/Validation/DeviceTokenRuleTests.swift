import XCTest

@testable import APNsCore
@testable import TestFixtures

/// Device-token format (docs/apns-behaviour.md §9 "Device token format", §3; docs/field-cases.md C13).
final class DeviceTokenRuleTests: XCTestCase {
    typealias F = ValidationFixture

    static let hex64 = String(repeating: "0123456789abcdef", count: 4)
    static let hex108 = String(repeating: "3c5e", count: 27)
    static let hex160 = String(repeating: "fa", count: 80)

    func testTokenFormatTable() {
        let rows = [
            ValidationRow("64 lowercase", F.request(token: Self.hex64), nil),
            ValidationRow("64 uppercase", F.request(token: Self.hex64.uppercased()), nil),
            ValidationRow("108", F.request(token: Self.hex108), nil),
            ValidationRow("160", F.request(token: Self.hex160), nil),
            ValidationRow("200 (the default maximum)", F.request(token: String(repeating: "ab", count: 100)), nil),
            ValidationRow(
                "202, over the maximum", F.request(token: String(repeating: "ab", count: 101)), .badDeviceToken),
            ValidationRow("odd length", F.request(token: String(Self.hex64.dropLast())), .badDeviceToken),
            ValidationRow("non-hex letters", F.request(token: String(repeating: "zz", count: 32)), .badDeviceToken),
            ValidationRow(
                "iOS 13 description",
                F.request(token: "{length=32,bytes=0x3c5e4c6f2b1a9d8e...7a6b5c4d3e2f1a0b}"), .badDeviceToken),
            ValidationRow(
                "NSData description", F.request(token: "<3c5e4c6f 2b1a9d8e 7a6b5c4d 3e2f1a0b>"), .badDeviceToken),
            ValidationRow(
                "NSData description percent-encoded",
                F.request(token: "%3C3c5e4c6f%202b1a9d8e%207a6b5c4d%203e2f1a0b%3E"), .badDeviceToken),
            ValidationRow("<abcd ef>", F.request(token: "<abcd ef>"), .badDeviceToken),
            ValidationRow("<abcd ef> percent-encoded", F.request(token: "%3Cabcd%20ef%3E"), .badDeviceToken),
            ValidationRow("percent-encoded hex is not decoded", F.request(token: "%61%62"), .badDeviceToken),
            ValidationRow("0x prefix", F.request(token: "0x" + Self.hex64), .badDeviceToken),
            ValidationRow("base64", F.request(token: "PF5Mbysam46Ha2tcTT4vGgs="), .badDeviceToken),
        ]
        let verdicts = check(rows)
        XCTAssertEqual(verdicts[1].deviceToken, Self.hex64, "stored lowercase")
        XCTAssertEqual(verdicts[2].deviceToken, Self.hex108)
        XCTAssertEqual(verdicts[11].deviceToken, "<abcd ef>", "a refused token is still recorded")
    }

    func testTokenLengthOptions() {
        let exact64 = ValidationOptions(tokenLength: 64)
        let max100 = ValidationOptions(maxTokenLength: 100)
        check([
            ValidationRow("exact 64 accepts 64", F.request(token: Self.hex64), nil, options: exact64),
            ValidationRow("exact 64 refuses 108", F.request(token: Self.hex108), .badDeviceToken, options: exact64),
            ValidationRow(
                "exact 64 refuses 62", F.request(token: String(Self.hex64.dropLast(2))), .badDeviceToken,
                options: exact64),
            ValidationRow("max 100 accepts 64", F.request(token: Self.hex64), nil, options: max100),
            ValidationRow("max 100 refuses 108", F.request(token: Self.hex108), .badDeviceToken, options: max100),
        ])
    }

    func testNormalizedDirectly() {
        let options = ValidationOptions()
        XCTAssertEqual(DeviceTokenRule.normalized("ABcd", options: options), "abcd")
        XCTAssertEqual(DeviceTokenRule.normalized(Substring("x/ABCD").dropFirst(2), options: options), "abcd")
        XCTAssertNil(DeviceTokenRule.normalized("", options: options))
        XCTAssertNil(DeviceTokenRule.normalized("abc", options: options))
        XCTAssertNil(DeviceTokenRule.normalized("abcg", options: options))
        XCTAssertNil(DeviceTokenRule.normalized("ab\u{e9}", options: options), "non-ASCII")
        XCTAssertNil(DeviceTokenRule.normalized("abcd", options: ValidationOptions(tokenLength: 6)))
    }

    func testLookupUsesLowercaseToken() {
        var keys: [String] = []
        let request = F.request(token: Self.hex64.uppercased())
        let verdict = RequestValidator.validate(
            request, environment: .sandbox, options: ValidationOptions(),
            nowMilliseconds: F.now
        ) { key in
            keys.append(key)
            return nil
        }
        XCTAssertNil(verdict.reason)
        XCTAssertEqual(keys, [Self.hex64])
    }
}

/// `DeviceTokenRule.lowercasedHex`, eight bytes at a time, against a byte-at-a-time definition.
final class DeviceTokenHexTests: XCTestCase {
    private func reference(_ bytes: [UInt8]) -> String? {
        for byte in bytes
        where !(0x30...0x39).contains(byte) && !(0x41...0x46).contains(byte) && !(0x61...0x66).contains(byte) {
            return nil
        }
        return String(decoding: bytes.map { (0x41...0x46).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    private func fast(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { DeviceTokenRule.lowercasedHex($0) }
    }

    func testEveryByteValueAtEveryPositionOfAWordAndTheTail() {
        let base = Array("0123456789abcdefABCDEF0".utf8)  // two whole words and a tail of seven
        for position in base.indices {
            for value in 0...255 {
                var bytes = base
                bytes[position] = UInt8(value)
                XCTAssertEqual(fast(bytes), reference(bytes), "byte \(value) at \(position)")
            }
        }
    }

    func testLengthsAroundTheWordSize() {
        for length in 0...33 {
            let bytes = Array(String(repeating: "aF3", count: 12).utf8.prefix(length))
            XCTAssertEqual(fast(bytes), reference(bytes), "length \(length)")
        }
    }
}
