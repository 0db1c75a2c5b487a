import Foundation

/// JWT's base64url (RFC 4648 section 5, RFC 7515 section 2): the alphabet swap around
/// Foundation's base64, which does the actual coding.
enum Base64URL {
    /// The bytes `text` encodes, or `nil` when it is not base64url. Padding `=` is optional
    /// (JWS omits it); `+` and `/` (standard base64) are refused.
    static func decode(_ text: Substring) -> [UInt8]? {
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf8.count + 3)
        var padding = 0
        for byte in text.utf8 {
            if padding > 0 && byte != UInt8(ascii: "=") { return nil }  // "=" only at the end
            switch byte {
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            case UInt8(ascii: "+"), UInt8(ascii: "/"): return nil
            case UInt8(ascii: "="): padding += 1
            default: bytes.append(byte)
            }
        }
        guard padding <= 2, bytes.count % 4 != 1 else { return nil }
        while bytes.count % 4 != 0 { bytes.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(bytes)).map { [UInt8]($0) }
    }

    /// `bytes` as unpadded base64url.
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}
