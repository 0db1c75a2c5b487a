import XCTest

@testable import Recording

/// `CompactRecordWriter`'s hex packing, eight digits at a time (`HexDigits.pack`), against the
/// digit table one byte at a time.
final class CompactRecordWriterTests: XCTestCase {
    /// What the table says of eight bytes: the packed pairs and the kinds, or nil.
    private func expected(_ bytes: [UInt8]) -> (UInt32, UInt8)? {
        var packed: UInt32 = 0
        var kinds: UInt8 = 0
        for k in 0..<4 {
            let a = HexDigits.table[Int(bytes[2 * k])], b = HexDigits.table[Int(bytes[2 * k + 1])]
            if a == 0 || b == 0 { return nil }
            kinds |= (a | b) & 0xF0
            packed |= UInt32((a & 0x0F) << 4 | (b & 0x0F)) << UInt32(8 * k)
        }
        return (packed, kinds)
    }

    func testEightDigitsAtATimeAreTheTablesPairs() {
        let alphabet =
            Array("0123456789abcdefABCDEF".utf8) + [0x2F, 0x3A, 0x40, 0x47, 0x60, 0x67, 0x00, 0x7F, 0x80, 0xC3, 0xFF]
        var random: UInt64 = 0x9E37_79B9_7F4A_7C15
        for round in 0..<50_000 {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            var bytes: [UInt8] = []
            var bits = random
            // Mostly hex digits, so that most words pack.
            for _ in 0..<8 {
                let index = Int(bits % 64)
                bytes.append(index < 56 ? alphabet[index % 22] : alphabet[22 + index % alphabet.count % 11])
                bits >>= 6
            }
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            let got = HexDigits.pack(UInt64(littleEndian: word))
            let want = expected(bytes)
            XCTAssertEqual(got?.0, want?.0, "round \(round): \(bytes)")
            XCTAssertEqual(got?.1, want?.1, "round \(round): \(bytes)")
        }
    }

    /// Hex strings of every even length, in either case, digits only or mixed case, read back
    /// as written; the hex forms take half the bytes.
    func testHexStringsReadBackAsWritten() {
        for length in stride(from: 2, through: 48, by: 2) {
            let texts = [
                String(String(repeating: "a1b2c3d4e5f60789", count: 3).prefix(length)),
                String(String(repeating: "A1B2C3D4E5F60789", count: 3).prefix(length)),
                String(String(repeating: "0123456789", count: 5).prefix(length)),
                String(String(repeating: "aB", count: 24).prefix(length)),
                String(String(repeating: "a1b2c3g4", count: 6).prefix(length)),
            ]
            for text in texts {
                var bytes = [UInt8](repeating: 0, count: 80)
                let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int in
                    var w = CompactRecordWriter(buffer)
                    w.string(text)
                    return w.position
                }
                let read = bytes.withUnsafeBufferPointer { CompactRecordReader.string(in: $0, at: 0) }
                XCTAssertEqual(read, text, text)
                let packable = text.allSatisfy(\.isHexDigit) && (text.lowercased() == text || text.uppercased() == text)
                if packable && CompactStringTable.code(of: text) == nil {
                    XCTAssertEqual(written, 2 + length / 2, "\(text): tag, count, half the bytes")
                }
            }
        }
    }
}
