import LegacyBinary

/// Builders of exact legacy-binary byte arrays for the tests.
enum BinaryFrames {
    static let token = [UInt8](0..<32)
    static let payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)

    static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func u32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func simple(token: [UInt8] = token, payload: [UInt8] = payload) -> [UInt8] {
        [0] + u16(token.count) + token + u16(payload.count) + payload
    }

    static func enhanced(
        identifier: UInt32, expiry: UInt32 = 0, token: [UInt8] = token, payload: [UInt8] = payload
    ) -> [UInt8] {
        [1] + u32(identifier) + u32(expiry) + u16(token.count) + token + u16(payload.count) + payload
    }

    static func item(_ id: UInt8, _ data: [UInt8]) -> [UInt8] { [id] + u16(data.count) + data }

    static func framed(_ items: [[UInt8]]) -> [UInt8] {
        let body = items.flatMap { $0 }
        return [2] + u32(UInt32(body.count)) + body
    }

    /// A command-2 frame with items 1, 2, 3, 4 and 5, as PyAPNs' `Frame.add_item` writes it.
    static func framed(
        identifier: UInt32, expiry: UInt32 = 0, priority: UInt8 = 10, token: [UInt8] = token,
        payload: [UInt8] = payload
    ) -> [UInt8] {
        framed([
            item(1, token), item(2, payload), item(3, u32(identifier)), item(4, u32(expiry)), item(5, [priority]),
        ])
    }
}
