/// Lowercase hexadecimal for device tokens: the binary protocol carries a token's bytes, the
/// registry and the HTTP/2 path its hexadecimal text.
public enum BinaryHex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lowercase hexadecimal, two digits a byte.
    public static func encode(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of hexadecimal `text` (either case), or `nil` when it is not an even number of
    /// hexadecimal digits. An empty text gives no bytes.
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x41...0x46: digit - 0x41 + 10
        case 0x61...0x66: digit - 0x61 + 10
        default: nil
        }
    }
}
