/// What a request to an APNs listener is, by its path (docs/broadcast.md §4): a device push
/// (`/3/device/...`, and anything else the channel and broadcast APIs do not claim), a
/// channel-management request (`/1/...`) or a broadcast send (`/4/...`, or `4/...` as Apple's
/// sample writes it). A record's `kind`, and the delivery filter's.
public enum RequestKind: String, Sendable, Hashable, CaseIterable, Codable {
    case push, channel, broadcast

    /// The kind of a request with this `:path`; reads at most three bytes, in place (the one
    /// check a device push pays for the channel and broadcast paths: the generic `UTF8View`
    /// iterator cost 124 instructions a push, bench/callgrind.sh).
    @inlinable @inline(__always)
    public init(path: String) {
        self = UTF8Bytes.with(path) { bytes in
            var index = 0
            if bytes.count > 0 && bytes[0] == UInt8(ascii: "/") {
                index = 1
            } else if bytes.count == 0 || bytes[0] != UInt8(ascii: "4") {
                return .push
            }
            guard bytes.count >= index + 2, bytes[index + 1] == UInt8(ascii: "/") else { return .push }
            switch bytes[index] {
            case UInt8(ascii: "1"): return .channel
            case UInt8(ascii: "4"): return .broadcast
            default: return .push
            }
        }
    }

    /// The channel a request of this kind names: its `apns-channel-id` header, or the path
    /// segment after `/channels/` (APNSwift's older form, percent-decoded); nil for a device
    /// push and for a channel request naming none.
    public func channelID(path: String, headers: [HeaderField]) -> String? {
        guard self != .push else { return nil }
        if let field = headers.first(where: { $0.name == "apns-channel-id" }) { return field.value }
        guard self == .channel, let range = path.range(of: "/channels/") else { return nil }
        let segment = path[range.upperBound...]
        guard !segment.isEmpty, !segment.contains("/") else { return nil }
        return Self.percentDecoded(segment)
    }

    /// `%XX` escapes decoded (as UTF-8); the text as it is when an escape is malformed.
    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            else { return String(text) }
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
