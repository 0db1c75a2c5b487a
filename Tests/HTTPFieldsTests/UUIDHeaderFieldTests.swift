import Foundation
import HTTPFields
import XCTest

final class UUIDHeaderFieldTests: XCTestCase {
    /// The bits of `uuid` as `UUIDHeaderField` takes them: first 8 bytes big-endian, last 8.
    private func bits(_ uuid: UUID) -> (high: UInt64, low: UInt64) {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            (bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }, bytes.suffix(8).reduce(0) { $0 << 8 | UInt64($1) })
        }
    }

    func testSpellsAsFoundationDoesInBothCases() {
        let uuids =
            [
                UUID(uuidString: "00000000-0000-0000-0000-000000000000")!,
                UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")!,
                UUID(uuidString: "5CEB1110-A7CE-4F34-94CD-1B8A9C6DF677")!,
                UUID(uuidString: "0123ABCD-89EF-4567-0A1B-C2D3E4F5A6B7")!,
            ] + (0..<64).map { _ in UUID() }
        for uuid in uuids {
            let (high, low) = bits(uuid)
            let upper = UUIDHeaderField(name: "apns-id", high: high, low: low, uppercase: true)
            let lower = UUIDHeaderField(name: "apns-unique-id", high: high, low: low, uppercase: false)
            XCTAssertEqual(upper.value, uuid.uuidString)
            XCTAssertEqual(lower.value, uuid.uuidString.lowercased())
            XCTAssertEqual(upper.value.utf8.count, UUIDHeaderField.valueLength)
            XCTAssertEqual(upper.field, HeaderField(name: "apns-id", value: uuid.uuidString))
            XCTAssertEqual(lower.field, HeaderField(name: "apns-unique-id", value: uuid.uuidString.lowercased()))
        }
    }

    func testEqualityComparesNameBitsAndCase() {
        let a = UUIDHeaderField(name: "apns-id", high: 1, low: 2, uppercase: true)
        XCTAssertEqual(a, UUIDHeaderField(name: "apns-id", high: 1, low: 2, uppercase: true))
        XCTAssertNotEqual(a, UUIDHeaderField(name: "apns-unique-id", high: 1, low: 2, uppercase: true))
        XCTAssertNotEqual(a, UUIDHeaderField(name: "apns-id", high: 1, low: 3, uppercase: true))
        XCTAssertNotEqual(a, UUIDHeaderField(name: "apns-id", high: 0, low: 2, uppercase: true))
        XCTAssertNotEqual(a, UUIDHeaderField(name: "apns-id", high: 1, low: 2, uppercase: false))
    }
}
